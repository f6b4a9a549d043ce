/* A minimal FMI 2.0 / 3.0 Co-Simulation master in portable C, compiled for every platform
 * hydromech ships (native cc for linux64, x86_64-w64-mingw32-gcc for win64, run under wine;
 * aarch64-linux-gnu-gcc for ARM64, run under qemu-aarch64). It runs one FMU binary through
 * a plan and writes every output as its IEEE-754 bit pattern, so that the results of the
 * platforms can be compared byte for byte (model-compiler/tests/cross_platform.rs), and so
 * that `hydromech verify` can run a win64 binary under wine (build.rs embeds the win64 build).
 *
 * Plan (whitespace-separated tokens; every real number as a 16-digit hex bit pattern):
 *   binary <path> resources <uri> guid <guid>   (resources NULL: pass NULL, as some masters do)
 *   experiment <start> <step> <steps>
 *   set <n> (<vr> <value>)*          parameters, before initialization
 *   inputs <m> <vr>*  outputs <n> <vr>*
 *   save <k> <file>                  after step k, fmi2SerializeFMUstate into <file> (k < 0: never)
 *   restore <k> <file>               after initialization, fmi2DeSerializeFMUstate <file> and
 *                                    continue from step k (k < 0: never)
 *   [initial <m values>]             inputs set before initialization (optional)
 *   [points <steps + 1 times>]       the communication points (optional; default
 *                                    start + k * step): step k goes from point k to k + 1
 *   values                           then <steps> rows of <m> input values (row k: before step k)
 * Output (argv[2]): a line per communication point from the start (or the restored step):
 *   <k> <outputs as hex>
 * With a third argument `fmi3` the same plan runs through the fmi3* functions (resources
 * is then a file path, guid the instantiation token); the output is the same.
 * Exit codes: 0 ok, 2 bad plan or binary, 3 the instantiate function returned NULL, 4 another
 * call failed. The FMU's log goes to stderr.
 */
#define __USE_MINGW_ANSI_STDIO 1
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <windows.h>
#define LOAD(path) ((void *)LoadLibraryA(path))
#define SYM(lib, name) ((void *)GetProcAddress((HMODULE)(lib), name))
#else
#include <dlfcn.h>
#define LOAD(path) dlopen(path, RTLD_NOW | RTLD_LOCAL)
#define SYM(lib, name) dlsym(lib, name)
#endif

/* FMI 2.0 types (fmi2TypesPlatform.h, fmi2FunctionTypes.h). */
typedef void *fmi2Component;
typedef void *fmi2ComponentEnvironment;
typedef void *fmi2FMUstate;
typedef unsigned int fmi2ValueReference;
typedef double fmi2Real;
typedef int fmi2Boolean;
typedef char fmi2Byte;
typedef const char *fmi2String;
typedef int fmi2Status; /* 0 OK, 1 Warning, 2 Discard, 3 Error, 4 Fatal, 5 Pending */
typedef struct {
    void (*logger)(fmi2ComponentEnvironment, fmi2String, fmi2Status, fmi2String, fmi2String, ...);
    void *(*allocateMemory)(size_t, size_t);
    void (*freeMemory)(void *);
    void (*stepFinished)(fmi2ComponentEnvironment, fmi2Status);
    fmi2ComponentEnvironment componentEnvironment;
} fmi2CallbackFunctions;

static void logger(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status,
                   fmi2String category, fmi2String message, ...) {
    va_list args;
    (void)env;
    fprintf(stderr, "[%s] %d %s: ", name ? name : "?", status, category ? category : "?");
    va_start(args, message);
    vfprintf(stderr, message, args);
    va_end(args);
    fputc('\n', stderr);
}

static double real_of(const char *hex) {
    uint64_t bits = strtoull(hex, NULL, 16);
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

static uint64_t bits_of(double x) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits;
}

static FILE *plan;
static char token[4096];

static const char *next(void) {
    if (fscanf(plan, "%4095s", token) != 1) {
        fprintf(stderr, "driver: the plan ends early\n");
        exit(2);
    }
    return token;
}

static void expect(const char *keyword) {
    if (strcmp(next(), keyword) != 0) {
        fprintf(stderr, "driver: expected '%s' in the plan, found '%s'\n", keyword, token);
        exit(2);
    }
}

static long integer(void) { return strtol(next(), NULL, 10); }

static void *symbol(void *lib, const char *name) {
    void *f = SYM(lib, name);
    if (!f) {
        fprintf(stderr, "driver: %s is not exported\n", name);
        exit(2);
    }
    return f;
}

static void check(fmi2Status status, const char *call) {
    if (status > 1) {
        fprintf(stderr, "driver: %s returned %d\n", call, status);
        exit(4);
    }
}

/* FMI 3.0 types (fmi3PlatformTypes.h): Float64 double, ValueReference uint32_t, Boolean
   bool, the status an int-sized enum. */
static void logger3(void *env, int status, const char *category, const char *message) {
    (void)env;
    fprintf(stderr, "[fmi3] %d %s: %s\n", status, category ? category : "?", message);
}

/* The calls the plan needs, the same for both versions. */
typedef struct {
    const char *version;
    void *c;
    int (*set_real)(void *, const unsigned int *, size_t, const double *);
    int (*get_real)(void *, const unsigned int *, size_t, double *);
    int (*exit_init)(void *);
    int (*terminate)(void *);
    void (*free_instance)(void *);
    int (*get_state)(void *, void **);
    int (*set_state)(void *, void *);
    int (*free_state)(void *, void **);
    int (*state_size)(void *, void *, size_t *);
    int (*serialize)(void *, void *, char *, size_t);
    int (*deserialize)(void *, const char *, size_t, void **);
    /* fmi2DoStep or fmi3DoStep */
    int (*do_step2)(void *, double, double, int);
    int (*do_step3)(void *, double, double, bool, bool *, bool *, bool *, double *);
    int (*set_real3)(void *, const unsigned int *, size_t, const double *, size_t);
    int (*get_real3)(void *, const unsigned int *, size_t, double *, size_t);
} Api;

static int set_real(Api *a, const unsigned int *vr, size_t n, const double *v) {
    return a->set_real3 ? a->set_real3(a->c, vr, n, v, n) : a->set_real(a->c, vr, n, v);
}

static int get_real(Api *a, const unsigned int *vr, size_t n, double *v) {
    return a->get_real3 ? a->get_real3(a->c, vr, n, v, n) : a->get_real(a->c, vr, n, v);
}

static int do_step(Api *a, double t, double h) {
    if (a->do_step3) {
        bool event = false, terminate = false, early = false;
        double last = t;
        int status = a->do_step3(a->c, t, h, true, &event, &terminate, &early, &last);
        if (status <= 1 && (early || event || terminate || last != t + h)) {
            fprintf(stderr, "driver: fmi3DoStep from %g by %g ended at %g (early %d)\n", t, h,
                    last, (int)early);
            return 4;
        }
        return status;
    }
    return a->do_step2(a->c, t, h, 1);
}

int main(int argc, char **argv) {
    char binary[4096], resources[4096], guid[256], save_file[4096], restore_file[4096];
    unsigned int *set_vr, *in_vr, *out_vr;
    double *set_value, *in_value, *out_value, *initial = NULL, *points = NULL;
    long n_set, n_in, n_out, steps, save_at, restore_at, k, i;
    double start, step;
    void *lib;
    fmi2CallbackFunctions callbacks = {logger, calloc, free, NULL, NULL};
    FILE *out;

    int fmi3 = argc == 4 && strcmp(argv[3], "fmi3") == 0;
    Api api;
    memset(&api, 0, sizeof api);
    if (argc != 3 && !fmi3) {
        fprintf(stderr, "usage: fmu_driver PLAN OUTPUT [fmi3]\n");
        return 2;
    }
    plan = fopen(argv[1], "r");
    if (!plan) {
        fprintf(stderr, "driver: cannot open %s\n", argv[1]);
        return 2;
    }
    expect("binary");
    strcpy(binary, next());
    expect("resources");
    strcpy(resources, next());
    expect("guid");
    strncpy(guid, next(), sizeof guid - 1);
    guid[sizeof guid - 1] = 0;
    expect("experiment");
    start = real_of(next());
    step = real_of(next());
    steps = integer();
    expect("set");
    n_set = integer();
    set_vr = calloc(n_set + 1, sizeof *set_vr);
    set_value = calloc(n_set + 1, sizeof *set_value);
    for (i = 0; i < n_set; i++) {
        set_vr[i] = (unsigned int)integer();
        set_value[i] = real_of(next());
    }
    expect("inputs");
    n_in = integer();
    in_vr = calloc(n_in + 1, sizeof *in_vr);
    in_value = calloc(n_in + 1, sizeof *in_value);
    for (i = 0; i < n_in; i++) in_vr[i] = (unsigned int)integer();
    expect("outputs");
    n_out = integer();
    out_vr = calloc(n_out + 1, sizeof *out_vr);
    out_value = calloc(n_out + 1, sizeof *out_value);
    for (i = 0; i < n_out; i++) out_vr[i] = (unsigned int)integer();
    expect("save");
    save_at = integer();
    strcpy(save_file, next());
    expect("restore");
    restore_at = integer();
    strcpy(restore_file, next());
    for (;;) {
        next();
        if (strcmp(token, "initial") == 0) {
            initial = calloc(n_in + 1, sizeof *initial);
            for (i = 0; i < n_in; i++) initial[i] = real_of(next());
        } else if (strcmp(token, "points") == 0) {
            points = calloc(steps + 1, sizeof *points);
            for (i = 0; i <= steps; i++) points[i] = real_of(next());
        } else if (strcmp(token, "values") == 0) {
            break;
        } else {
            fprintf(stderr, "driver: expected 'initial', 'points' or 'values', found '%s'\n", token);
            return 2;
        }
    }

    lib = LOAD(binary);
    if (!lib) {
        fprintf(stderr, "driver: cannot load %s\n", binary);
        return 2;
    }
    if (fmi3) {
        void *(*instantiate)(const char *, const char *, const char *, bool, bool, bool, bool,
                             const unsigned int *, size_t, void *,
                             void (*)(void *, int, const char *, const char *),
                             void *) = symbol(lib, "fmi3InstantiateCoSimulation");
        int (*enter_init)(void *, bool, double, double, bool, double) =
            symbol(lib, "fmi3EnterInitializationMode");
        api.version = "fmi3";
        api.set_real3 = symbol(lib, "fmi3SetFloat64");
        api.get_real3 = symbol(lib, "fmi3GetFloat64");
        api.exit_init = symbol(lib, "fmi3ExitInitializationMode");
        api.do_step3 = symbol(lib, "fmi3DoStep");
        api.terminate = symbol(lib, "fmi3Terminate");
        api.free_instance = symbol(lib, "fmi3FreeInstance");
        api.get_state = symbol(lib, "fmi3GetFMUState");
        api.set_state = symbol(lib, "fmi3SetFMUState");
        api.free_state = symbol(lib, "fmi3FreeFMUState");
        api.state_size = symbol(lib, "fmi3SerializedFMUStateSize");
        api.serialize = symbol(lib, "fmi3SerializeFMUState");
        api.deserialize = symbol(lib, "fmi3DeserializeFMUState");
        api.c = instantiate("driver", guid, strcmp(resources, "NULL") == 0 ? NULL : resources,
                            false, false, false, false, NULL, 0, NULL, logger3, NULL);
        if (!api.c) {
            fprintf(stderr, "driver: fmi3InstantiateCoSimulation returned NULL\n");
            return 3;
        }
        if (n_set > 0) check(set_real(&api, set_vr, (size_t)n_set, set_value), "fmi3SetFloat64");
        if (initial && n_in > 0) check(set_real(&api, in_vr, (size_t)n_in, initial), "fmi3SetFloat64");
        check(enter_init(api.c, false, 0.0, start, false, 0.0), "fmi3EnterInitializationMode");
    } else {
        fmi2Component (*instantiate)(fmi2String, int, fmi2String, fmi2String,
                                     const fmi2CallbackFunctions *, fmi2Boolean, fmi2Boolean) =
            symbol(lib, "fmi2Instantiate");
        fmi2Status (*setup)(fmi2Component, fmi2Boolean, fmi2Real, fmi2Real, fmi2Boolean, fmi2Real) =
            symbol(lib, "fmi2SetupExperiment");
        fmi2Status (*enter_init)(fmi2Component) = symbol(lib, "fmi2EnterInitializationMode");
        api.version = "fmi2";
        api.set_real = symbol(lib, "fmi2SetReal");
        api.get_real = symbol(lib, "fmi2GetReal");
        api.exit_init = symbol(lib, "fmi2ExitInitializationMode");
        api.do_step2 = symbol(lib, "fmi2DoStep");
        api.terminate = symbol(lib, "fmi2Terminate");
        api.free_instance = symbol(lib, "fmi2FreeInstance");
        api.get_state = symbol(lib, "fmi2GetFMUstate");
        api.set_state = symbol(lib, "fmi2SetFMUstate");
        api.free_state = symbol(lib, "fmi2FreeFMUstate");
        api.state_size = symbol(lib, "fmi2SerializedFMUstateSize");
        api.serialize = symbol(lib, "fmi2SerializeFMUstate");
        api.deserialize = symbol(lib, "fmi2DeSerializeFMUstate");
        api.c = instantiate("driver", 1 /* fmi2CoSimulation */, guid,
                            strcmp(resources, "NULL") == 0 ? NULL : resources, &callbacks, 0, 0);
        if (!api.c) {
            fprintf(stderr, "driver: fmi2Instantiate returned NULL\n");
            return 3;
        }
        check(setup(api.c, 0, 0.0, start, 0, 0.0), "fmi2SetupExperiment");
        if (n_set > 0) check(set_real(&api, set_vr, (size_t)n_set, set_value), "fmi2SetReal");
        if (initial && n_in > 0) check(set_real(&api, in_vr, (size_t)n_in, initial), "fmi2SetReal");
        check(enter_init(api.c), "fmi2EnterInitializationMode");
    }
    check(api.exit_init(api.c), "ExitInitializationMode");
    k = 0;
    if (restore_at >= 0) {
        FILE *f = fopen(restore_file, "rb");
        long size;
        char *bytes;
        void *state = NULL;
        if (!f) {
            fprintf(stderr, "driver: cannot open %s\n", restore_file);
            return 2;
        }
        fseek(f, 0, SEEK_END);
        size = ftell(f);
        fseek(f, 0, SEEK_SET);
        bytes = malloc(size > 0 ? (size_t)size : 1);
        if (fread(bytes, 1, (size_t)size, f) != (size_t)size) return 2;
        fclose(f);
        check(api.deserialize(api.c, bytes, (size_t)size, &state), "DeserializeFMUState");
        check(api.set_state(api.c, state), "SetFMUState");
        check(api.free_state(api.c, &state), "FreeFMUState");
        free(bytes);
        k = restore_at;
    }
    out = fopen(argv[2], "w");
    if (!out) {
        fprintf(stderr, "driver: cannot write %s\n", argv[2]);
        return 2;
    }
    for (i = 0; i < k * n_in; i++) next(); /* skip the rows before the restored step */
    for (;; k++) {
        check(get_real(&api, out_vr, (size_t)n_out, out_value), "GetReal/GetFloat64");
        fprintf(out, "%ld", k);
        for (i = 0; i < n_out; i++)
            fprintf(out, " %016llx", (unsigned long long)bits_of(out_value[i]));
        fputc('\n', out);
        if (k == save_at) {
            void *state = NULL;
            size_t size = 0;
            char *bytes;
            FILE *f;
            check(api.get_state(api.c, &state), "GetFMUState");
            check(api.state_size(api.c, state, &size), "SerializedFMUStateSize");
            bytes = malloc(size);
            check(api.serialize(api.c, state, bytes, size), "SerializeFMUState");
            check(api.free_state(api.c, &state), "FreeFMUState");
            f = fopen(save_file, "wb");
            if (!f || fwrite(bytes, 1, size, f) != size) return 2;
            fclose(f);
            free(bytes);
        }
        if (k == steps) break;
        for (i = 0; i < n_in; i++) in_value[i] = real_of(next());
        if (n_in > 0) check(set_real(&api, in_vr, (size_t)n_in, in_value), "SetReal/SetFloat64");
        if (points)
            check(do_step(&api, points[k], points[k + 1] - points[k]), "DoStep");
        else
            check(do_step(&api, start + (double)k * step, step), "DoStep");
    }
    fclose(out);
    check(api.terminate(api.c), "Terminate");
    api.free_instance(api.c);
    return 0;
}
