"""The CUDA stream a call is enqueued on, as the handle the C library takes."""

import sys


def handle(stream):
    """cudaStream_t of stream: a torch.cuda.Stream, an object with __cuda_stream__ (the CUDA
    stream protocol: it returns (version, handle)), an int handle, or None for torch's current
    stream (the legacy default stream, 0, where torch is not imported)."""
    if stream is None:
        torch = sys.modules.get("torch")
        return torch.cuda.current_stream().cuda_stream if torch is not None else 0
    if type(stream) is int:
        return stream  # first: looking for the attributes below on an int costs two misses
    protocol = getattr(stream, "__cuda_stream__", None)
    if protocol is not None:
        version_and_handle = protocol() if callable(protocol) else protocol
        return int(version_and_handle[1])
    cuda_stream = getattr(stream, "cuda_stream", None)
    if cuda_stream is not None:
        return int(cuda_stream)
    if isinstance(stream, int):
        return stream
    raise ValueError(
        f"stream: {type(stream).__name__} is not a stream (give a torch.cuda.Stream, an object "
        "with __cuda_stream__, a cudaStream_t as an int, or None)"
    )
