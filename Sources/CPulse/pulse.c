// The libpulse functions the program calls, defined here over the library opened on first use (see CPulse.h).
// Each definition is checked against libpulse's own declaration, which the header includes.
#include "CPulse.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#define CPULSE_FUNCTIONS(X) \
    X(pa_threaded_mainloop_new) X(pa_threaded_mainloop_free) X(pa_threaded_mainloop_start) \
    X(pa_threaded_mainloop_stop) X(pa_threaded_mainloop_lock) X(pa_threaded_mainloop_unlock) \
    X(pa_threaded_mainloop_get_api) X(pa_context_new) X(pa_context_unref) X(pa_context_connect) \
    X(pa_context_disconnect) X(pa_context_get_state) X(pa_context_errno) X(pa_context_set_state_callback) \
    X(pa_context_rttime_new) X(pa_context_rttime_restart) X(pa_rtclock_now) X(pa_strerror) X(pa_operation_unref) \
    X(pa_context_get_server_info) \
    X(pa_stream_new) X(pa_stream_unref) X(pa_stream_connect_playback) X(pa_stream_disconnect) \
    X(pa_stream_get_state) X(pa_stream_get_context) X(pa_stream_set_state_callback) \
    X(pa_stream_set_write_callback) X(pa_stream_set_underflow_callback) X(pa_stream_set_started_callback) \
    X(pa_stream_begin_write) X(pa_stream_write) X(pa_stream_get_latency) X(pa_stream_update_timing_info) \
    X(pa_stream_get_buffer_attr) X(pa_stream_set_buffer_attr)

static struct {
#define CPULSE_FIELD(name) __typeof__(name) *name;
    CPULSE_FUNCTIONS(CPULSE_FIELD)
#undef CPULSE_FIELD
} f;
static const char *failure = "libpulse.so.0 not opened";
static char why[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void open_library(void) {
    void *h = dlopen("libpulse.so.0", RTLD_NOW | RTLD_LOCAL);
    if (h) {
#define CPULSE_FIND(name) if (!(*(void **)&f.name = dlsym(h, #name))) h = NULL;
        CPULSE_FUNCTIONS(CPULSE_FIND)
#undef CPULSE_FIND
    }
    if (!h) {
        const char *e = dlerror();
        snprintf(why, sizeof why, "%s", e ? e : "libpulse.so.0 lacks a function");
        failure = why;
        return;
    }
    failure = NULL;
}

const char *CPulse_load(void) {
    pthread_once(&once, open_library);
    return failure;
}

#define READY (CPulse_load() == NULL)

pa_threaded_mainloop *pa_threaded_mainloop_new(void) { return READY ? f.pa_threaded_mainloop_new() : NULL; }
void pa_threaded_mainloop_free(pa_threaded_mainloop *m) { if (READY) f.pa_threaded_mainloop_free(m); }
int pa_threaded_mainloop_start(pa_threaded_mainloop *m) { return READY ? f.pa_threaded_mainloop_start(m) : -1; }
void pa_threaded_mainloop_stop(pa_threaded_mainloop *m) { if (READY) f.pa_threaded_mainloop_stop(m); }
void pa_threaded_mainloop_lock(pa_threaded_mainloop *m) { if (READY) f.pa_threaded_mainloop_lock(m); }
void pa_threaded_mainloop_unlock(pa_threaded_mainloop *m) { if (READY) f.pa_threaded_mainloop_unlock(m); }
pa_mainloop_api *pa_threaded_mainloop_get_api(pa_threaded_mainloop *m) {
    return READY ? f.pa_threaded_mainloop_get_api(m) : NULL;
}

pa_context *pa_context_new(pa_mainloop_api *api, const char *name) { return READY ? f.pa_context_new(api, name) : NULL; }
void pa_context_unref(pa_context *c) { if (READY) f.pa_context_unref(c); }
int pa_context_connect(pa_context *c, const char *server, pa_context_flags_t flags, const pa_spawn_api *api) {
    return READY ? f.pa_context_connect(c, server, flags, api) : -1;
}
void pa_context_disconnect(pa_context *c) { if (READY) f.pa_context_disconnect(c); }
pa_context_state_t pa_context_get_state(const pa_context *c) {
    return READY ? f.pa_context_get_state(c) : PA_CONTEXT_FAILED;
}
int pa_context_errno(const pa_context *c) { return READY ? f.pa_context_errno(c) : PA_ERR_INTERNAL; }
void pa_context_set_state_callback(pa_context *c, pa_context_notify_cb_t cb, void *userdata) {
    if (READY) f.pa_context_set_state_callback(c, cb, userdata);
}
pa_time_event *pa_context_rttime_new(const pa_context *c, pa_usec_t usec, pa_time_event_cb_t cb, void *userdata) {
    return READY ? f.pa_context_rttime_new(c, usec, cb, userdata) : NULL;
}
void pa_context_rttime_restart(const pa_context *c, pa_time_event *e, pa_usec_t usec) {
    if (READY) f.pa_context_rttime_restart(c, e, usec);
}
pa_usec_t pa_rtclock_now(void) { return READY ? f.pa_rtclock_now() : 0; }
const char *pa_strerror(int error) { return READY ? f.pa_strerror(error) : CPulse_load(); }
void pa_operation_unref(pa_operation *o) { if (READY) f.pa_operation_unref(o); }
pa_operation *pa_context_get_server_info(pa_context *c, pa_server_info_cb_t cb, void *userdata) {
    return READY ? f.pa_context_get_server_info(c, cb, userdata) : NULL;
}

pa_stream *pa_stream_new(pa_context *c, const char *name, const pa_sample_spec *ss, const pa_channel_map *map) {
    return READY ? f.pa_stream_new(c, name, ss, map) : NULL;
}
void pa_stream_unref(pa_stream *s) { if (READY) f.pa_stream_unref(s); }
int pa_stream_connect_playback(pa_stream *s, const char *dev, const pa_buffer_attr *attr, pa_stream_flags_t flags,
                               const pa_cvolume *volume, pa_stream *sync_stream) {
    return READY ? f.pa_stream_connect_playback(s, dev, attr, flags, volume, sync_stream) : -1;
}
int pa_stream_disconnect(pa_stream *s) { return READY ? f.pa_stream_disconnect(s) : -1; }
pa_stream_state_t pa_stream_get_state(const pa_stream *s) { return READY ? f.pa_stream_get_state(s) : PA_STREAM_FAILED; }
pa_context *pa_stream_get_context(const pa_stream *s) { return READY ? f.pa_stream_get_context(s) : NULL; }
void pa_stream_set_state_callback(pa_stream *s, pa_stream_notify_cb_t cb, void *userdata) {
    if (READY) f.pa_stream_set_state_callback(s, cb, userdata);
}
void pa_stream_set_write_callback(pa_stream *s, pa_stream_request_cb_t cb, void *userdata) {
    if (READY) f.pa_stream_set_write_callback(s, cb, userdata);
}
void pa_stream_set_underflow_callback(pa_stream *s, pa_stream_notify_cb_t cb, void *userdata) {
    if (READY) f.pa_stream_set_underflow_callback(s, cb, userdata);
}
void pa_stream_set_started_callback(pa_stream *s, pa_stream_notify_cb_t cb, void *userdata) {
    if (READY) f.pa_stream_set_started_callback(s, cb, userdata);
}
int pa_stream_begin_write(pa_stream *s, void **data, size_t *nbytes) {
    return READY ? f.pa_stream_begin_write(s, data, nbytes) : -1;
}
int pa_stream_write(pa_stream *s, const void *data, size_t nbytes, pa_free_cb_t free_cb, int64_t offset,
                    pa_seek_mode_t seek) {
    return READY ? f.pa_stream_write(s, data, nbytes, free_cb, offset, seek) : -1;
}
int pa_stream_get_latency(pa_stream *s, pa_usec_t *r_usec, int *negative) {
    return READY ? f.pa_stream_get_latency(s, r_usec, negative) : -1;
}
pa_operation *pa_stream_update_timing_info(pa_stream *s, pa_stream_success_cb_t cb, void *userdata) {
    return READY ? f.pa_stream_update_timing_info(s, cb, userdata) : NULL;
}
const pa_buffer_attr *pa_stream_get_buffer_attr(pa_stream *s) { return READY ? f.pa_stream_get_buffer_attr(s) : NULL; }
pa_operation *pa_stream_set_buffer_attr(pa_stream *s, const pa_buffer_attr *attr, pa_stream_success_cb_t cb,
                                        void *userdata) {
    return READY ? f.pa_stream_set_buffer_attr(s, attr, cb, userdata) : NULL;
}
