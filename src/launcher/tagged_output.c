#include "launcher.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

void tagged_stream_init(struct tagged_stream *stream, int fd, int out_fd, int rank) {
    stream->fd = fd;
    stream->out_fd = out_fd;
    stream->prefix_len = (size_t)snprintf(stream->buf, TAG_PREFIX_MAX, "[%d] ", rank);
    stream->line_len = 0;
}

/* Losing our own stdout (a closed pipe) must not stop the run, so errors are dropped. */
static void write_all(int fd, const char *data, size_t len) {
    while (len > 0) {
        ssize_t written = write(fd, data, len);
        if (written < 0) {
            if (errno == EINTR)
                continue;
            return;
        }
        data += written;
        len -= (size_t)written;
    }
}

static void emit_line(struct tagged_stream *stream) {
    char *line = stream->buf + stream->prefix_len;
    if (stream->line_len == 0)
        return;
    if (line[stream->line_len - 1] != '\n')
        line[stream->line_len++] = '\n';
    write_all(stream->out_fd, stream->buf, stream->prefix_len + stream->line_len);
    stream->line_len = 0;
}

/* A line longer than TAG_LINE_MAX goes out in tagged pieces, so memory stays bounded. */
static void append(struct tagged_stream *stream, const char *data, size_t len) {
    char *line = stream->buf + stream->prefix_len;
    while (len > 0) {
        const char *newline = memchr(data, '\n', len);
        size_t take = newline != NULL ? (size_t)(newline - data) + 1 : len;
        size_t room = TAG_LINE_MAX - stream->line_len;
        if (take > room)
            take = room;
        memcpy(line + stream->line_len, data, take);
        stream->line_len += take;
        data += take;
        len -= take;
        if (line[stream->line_len - 1] == '\n' || stream->line_len == TAG_LINE_MAX)
            emit_line(stream);
    }
}

bool tagged_stream_pump(struct tagged_stream *stream) {
    char chunk[65536];
    ssize_t got;
    do
        got = read(stream->fd, chunk, sizeof chunk);
    while (got < 0 && errno == EINTR);
    if (got > 0) {
        append(stream, chunk, (size_t)got);
        return true;
    }
    if (got < 0 && errno == EAGAIN)
        return false;
    tagged_stream_close(stream);
    return false;
}

void tagged_stream_close(struct tagged_stream *stream) {
    if (stream->fd < 0)
        return;
    emit_line(stream);
    close(stream->fd);
    stream->fd = -1;
}
