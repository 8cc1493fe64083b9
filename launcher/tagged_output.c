#include "launcher.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

void output_queue_init(struct output_queue *queue, int fd) {
    queue->fd = fd;
    queue->broken = false;
    queue->start = 0;
    queue->len = 0;
}

bool output_queue_pending(const struct output_queue *queue) {
    return queue->len > 0;
}

/* Appends prefix and line, ending it with a newline where it has none; false if there is no
   room for that now. */
static bool output_queue_append_line(struct output_queue *queue, const char *prefix,
                                     size_t prefix_len, const char *line, size_t line_len) {
    if (queue->broken)
        return true;
    size_t needed = prefix_len + line_len + 1;
    if (OUTPUT_QUEUE_BYTES - queue->len < needed)
        return false;
    if (OUTPUT_QUEUE_BYTES - queue->start - queue->len < needed) {
        memmove(queue->buf, queue->buf + queue->start, queue->len);
        queue->start = 0;
    }
    char *end = queue->buf + queue->start + queue->len;
    memcpy(end, prefix, prefix_len);
    memcpy(end + prefix_len, line, line_len);
    queue->len += prefix_len + line_len;
    if (line[line_len - 1] != '\n')
        queue->buf[queue->start + queue->len++] = '\n';
    return true;
}

/* Losing our own stdout (a closed pipe) must not stop the run, so a failed write only drops
   the output. */
bool output_queue_write(struct output_queue *queue) {
    size_t len = queue->len < PIPE_BUF ? queue->len : PIPE_BUF;
    ssize_t written = write(queue->fd, queue->buf + queue->start, len);
    if (written < 0) {
        if (errno != EINTR && errno != EAGAIN) {
            queue->broken = true;
            queue->len = 0;
        }
        return false;
    }
    queue->start += (size_t)written;
    queue->len -= (size_t)written;
    if (queue->len == 0)
        queue->start = 0;
    return written > 0;
}

void tagged_stream_init(struct tagged_stream *stream, int fd, struct output_queue *queue,
                        int rank) {
    stream->fd = fd;
    stream->read_limit = SIZE_MAX;
    stream->queue = queue;
    stream->blocked = false;
    stream->prefix_len = (size_t)snprintf(stream->prefix, sizeof stream->prefix, "[%d] ", rank);
    stream->start = 0;
    stream->len = 0;
}

/* A read into no room would look like EOF. */
bool tagged_stream_wants_input(const struct tagged_stream *stream) {
    return stream->fd >= 0 && !stream->blocked && stream->len < TAG_LINE_MAX;
}

/* The length of the line ready to go: up to a newline, a full buffer, or what is left once
   the pipe is closed; 0 if none. */
static size_t ready_line_len(const struct tagged_stream *stream) {
    const char *data = stream->pending + stream->start;
    const char *newline = memchr(data, '\n', stream->len);
    if (newline != NULL)
        return (size_t)(newline - data) + 1;
    return stream->len == TAG_LINE_MAX || stream->fd < 0 ? stream->len : 0;
}

void tagged_stream_queue_lines(struct tagged_stream *stream) {
    size_t line_len;
    while ((line_len = ready_line_len(stream)) > 0) {
        if (!output_queue_append_line(stream->queue, stream->prefix, stream->prefix_len,
                                      stream->pending + stream->start, line_len)) {
            stream->blocked = true;
            return;
        }
        stream->start += line_len;
        stream->len -= line_len;
    }
    stream->blocked = false;
}

static void close_input(struct tagged_stream *stream) {
    close(stream->fd);
    stream->fd = -1;
}

void tagged_stream_pump(struct tagged_stream *stream) {
    memmove(stream->pending, stream->pending + stream->start, stream->len);
    stream->start = 0;
    size_t room = TAG_LINE_MAX - stream->len;
    if (room > stream->read_limit)
        room = stream->read_limit;
    ssize_t got;
    do
        got = read(stream->fd, stream->pending + stream->len, room);
    while (got < 0 && errno == EINTR);
    /* With a limit, an empty pipe means what was there is gone; without, that more comes. */
    if (got < 0 && errno == EAGAIN && stream->read_limit == SIZE_MAX)
        return;
    if (got > 0) {
        stream->len += (size_t)got;
        stream->read_limit -= (size_t)got;
    }
    if (got <= 0 || stream->read_limit == 0)
        close_input(stream);
}

/* A child's own children may hold its pipe open after it ended. */
void tagged_stream_read_only_what_is_there(struct tagged_stream *stream) {
    int available = 0;
    if (stream->fd < 0)
        return;
    if (ioctl(stream->fd, FIONREAD, &available) != 0 || available <= 0) {
        close_input(stream);
        return;
    }
    stream->read_limit = (size_t)available;
}
