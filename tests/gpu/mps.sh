#!/usr/bin/env bash
# Sourced by check.sh: MPS with a private pipe directory, started when PEs outnumber the GPUs,
# checked after a failed test (a fault in one client can leave the server refusing new ones: then
# it is restarted), stopped at the end.
MPS_CHECK=${MPS_CHECK:-}

mps_start() {
  CUDA_MPS_PIPE_DIRECTORY=$(mktemp -d)
  CUDA_MPS_LOG_DIRECTORY=$(mktemp -d)
  export CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
  nvidia-cuda-mps-control -d && sleep 1 && echo "mps: started ($CUDA_MPS_PIPE_DIRECTORY)"
}

# Stops the daemon of this pipe directory and its servers alone, not other users' MPS.
mps_stop() {
  [ -n "${CUDA_MPS_PIPE_DIRECTORY:-}" ] || return 0
  local servers pid
  servers=$(echo get_server_list | nvidia-cuda-mps-control 2>/dev/null)
  echo quit | nvidia-cuda-mps-control 2>/dev/null
  for pid in $servers; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
  done
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
  echo "mps: stopped"
}

# Restarts MPS when a one-PE run of $MPS_CHECK (a program that exits 0 on a usable GPU) fails.
mps_ensure() {
  [ -n "${CUDA_MPS_PIPE_DIRECTORY:-}" ] && [ -n "$MPS_CHECK" ] || return 0
  # shellcheck disable=SC2086 # MPS_CHECK is a command line
  if ! timeout 60 $MPS_CHECK >/dev/null 2>&1; then
    echo "mps: the server refuses clients; restarting it"
    mps_stop; mps_start
  fi
}

# PEs outnumber the GPUs: MPS, else every synchronization waits for a time slice.
mps_start_if_shared() {
  local pes=$1 gpus
  gpus=$(nvidia-smi -L | wc -l)
  if [ "$pes" -gt "$gpus" ]; then mps_start; fi
}
trap mps_stop EXIT
