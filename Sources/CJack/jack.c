// The libjack functions the program calls, defined here over the library opened on first use (see CJack.h).
// Each definition is checked against libjack's own declaration, which the header includes.
#include "CJack.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#define CJACK_FUNCTIONS(X) \
    X(jack_client_open) X(jack_client_close) X(jack_client_name_size) X(jack_get_client_name) X(jack_activate) \
    X(jack_deactivate) X(jack_connect) X(jack_get_ports) X(jack_free) X(jack_get_sample_rate) X(jack_is_realtime) \
    X(jack_frame_time) X(jack_last_frame_time) X(jack_port_register) X(jack_port_get_buffer) \
    X(jack_port_get_latency_range) X(jack_on_info_shutdown) X(jack_set_error_function) X(jack_set_info_function) \
    X(jack_set_process_callback) X(jack_set_timebase_callback) X(jack_set_xrun_callback) X(jack_transport_locate) \
    X(jack_transport_query) X(jack_transport_start) X(jack_transport_stop) X(jack_midi_clear_buffer) \
    X(jack_midi_event_get) X(jack_midi_event_reserve) X(jack_midi_get_event_count)

static struct {
#define CJACK_FIELD(name) __typeof__(name) *name;
    CJACK_FUNCTIONS(CJACK_FIELD)
#undef CJACK_FIELD
} f;
static const char *failure = "libjack.so.0 not opened";
static char why[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void open_library(void) {
    void *h = dlopen("libjack.so.0", RTLD_NOW | RTLD_LOCAL);
    if (h) {
#define CJACK_FIND(name) if (!(*(void **)&f.name = dlsym(h, #name))) h = NULL;
        CJACK_FUNCTIONS(CJACK_FIND)
#undef CJACK_FIND
    }
    if (!h) {
        const char *e = dlerror();
        snprintf(why, sizeof why, "%s", e ? e : "libjack.so.0 lacks a function");
        failure = why;
        return;
    }
    failure = NULL;
}

const char *CJack_load(void) {
    pthread_once(&once, open_library);
    return failure;
}

#define READY (CJack_load() == NULL)

// The variadic arguments (a server name with JackServerName) are not passed on: the program never asks for them.
jack_client_t *jack_client_open(const char *name, jack_options_t options, jack_status_t *status, ...) {
    if (READY) return f.jack_client_open(name, options, status);
    if (status) *status = JackFailure;
    return NULL;
}
int jack_client_close(jack_client_t *client) { return READY ? f.jack_client_close(client) : -1; }
int jack_client_name_size(void) { return READY ? f.jack_client_name_size() : 64; }
char *jack_get_client_name(jack_client_t *client) { return READY ? f.jack_get_client_name(client) : NULL; }
int jack_activate(jack_client_t *client) { return READY ? f.jack_activate(client) : -1; }
int jack_deactivate(jack_client_t *client) { return READY ? f.jack_deactivate(client) : -1; }
int jack_connect(jack_client_t *client, const char *source, const char *destination) {
    return READY ? f.jack_connect(client, source, destination) : -1;
}
const char **jack_get_ports(jack_client_t *client, const char *name_pattern, const char *type_pattern,
                            unsigned long flags) {
    return READY ? f.jack_get_ports(client, name_pattern, type_pattern, flags) : NULL;
}
void jack_free(void *ptr) { if (READY) f.jack_free(ptr); }
jack_nframes_t jack_get_sample_rate(jack_client_t *client) { return READY ? f.jack_get_sample_rate(client) : 0; }
int jack_is_realtime(jack_client_t *client) { return READY ? f.jack_is_realtime(client) : 0; }
jack_nframes_t jack_frame_time(const jack_client_t *client) { return READY ? f.jack_frame_time(client) : 0; }
jack_nframes_t jack_last_frame_time(const jack_client_t *client) { return READY ? f.jack_last_frame_time(client) : 0; }
jack_port_t *jack_port_register(jack_client_t *client, const char *name, const char *type, unsigned long flags,
                                unsigned long buffer_size) {
    return READY ? f.jack_port_register(client, name, type, flags, buffer_size) : NULL;
}
void *jack_port_get_buffer(jack_port_t *port, jack_nframes_t frames) {
    return READY ? f.jack_port_get_buffer(port, frames) : NULL;
}
void jack_port_get_latency_range(jack_port_t *port, jack_latency_callback_mode_t mode, jack_latency_range_t *range) {
    if (READY) f.jack_port_get_latency_range(port, mode, range);
}
void jack_on_info_shutdown(jack_client_t *client, JackInfoShutdownCallback callback, void *arg) {
    if (READY) f.jack_on_info_shutdown(client, callback, arg);
}
void jack_set_error_function(void (*func)(const char *)) { if (READY) f.jack_set_error_function(func); }
void jack_set_info_function(void (*func)(const char *)) { if (READY) f.jack_set_info_function(func); }
int jack_set_process_callback(jack_client_t *client, JackProcessCallback callback, void *arg) {
    return READY ? f.jack_set_process_callback(client, callback, arg) : -1;
}
int jack_set_timebase_callback(jack_client_t *client, int conditional, JackTimebaseCallback callback, void *arg) {
    return READY ? f.jack_set_timebase_callback(client, conditional, callback, arg) : -1;
}
int jack_set_xrun_callback(jack_client_t *client, JackXRunCallback callback, void *arg) {
    return READY ? f.jack_set_xrun_callback(client, callback, arg) : -1;
}
int jack_transport_locate(jack_client_t *client, jack_nframes_t frame) {
    return READY ? f.jack_transport_locate(client, frame) : -1;
}
jack_transport_state_t jack_transport_query(const jack_client_t *client, jack_position_t *pos) {
    return READY ? f.jack_transport_query(client, pos) : JackTransportStopped;
}
void jack_transport_start(jack_client_t *client) { if (READY) f.jack_transport_start(client); }
void jack_transport_stop(jack_client_t *client) { if (READY) f.jack_transport_stop(client); }
void jack_midi_clear_buffer(void *buffer) { if (READY) f.jack_midi_clear_buffer(buffer); }
int jack_midi_event_get(jack_midi_event_t *event, void *buffer, uint32_t index) {
    return READY ? f.jack_midi_event_get(event, buffer, index) : -1;
}
jack_midi_data_t *jack_midi_event_reserve(void *buffer, jack_nframes_t time, size_t size) {
    return READY ? f.jack_midi_event_reserve(buffer, time, size) : NULL;
}
uint32_t jack_midi_get_event_count(void *buffer) { return READY ? f.jack_midi_get_event_count(buffer) : 0; }
