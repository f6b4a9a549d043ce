/* A minimal FMI 2.0 Co-Simulation master in portable C, compiled for every platform
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
 * Exit codes: 0 ok, 2 bad plan or binary, 3 fmi2Instantiate returned NULL, 4 another call
 * failed. The FMU's log goes to stderr.
 */
#define __USE_MINGW_ANSI_STDIO 1
#include <stdarg.h>
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

int main(int argc, char **argv) {
    char binary[4096], resources[4096], guid[256], save_file[4096], restore_file[4096];
    unsigned int *set_vr, *in_vr, *out_vr;
    double *set_value, *in_value, *out_value, *initial = NULL, *points = NULL;
    long n_set, n_in, n_out, steps, save_at, restore_at, k, i;
    double start, step;
    void *lib;
    fmi2Component c;
    fmi2CallbackFunctions callbacks = {logger, calloc, free, NULL, NULL};
    FILE *out;

    if (argc != 3) {
        fprintf(stderr, "usage: fmu_driver PLAN OUTPUT\n");
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
    {
        fmi2Component (*instantiate)(fmi2String, int, fmi2String, fmi2String,
                                     const fmi2CallbackFunctions *, fmi2Boolean, fmi2Boolean) =
            symbol(lib, "fmi2Instantiate");
        fmi2Status (*setup)(fmi2Component, fmi2Boolean, fmi2Real, fmi2Real, fmi2Boolean, fmi2Real) =
            symbol(lib, "fmi2SetupExperiment");
        fmi2Status (*enter_init)(fmi2Component) = symbol(lib, "fmi2EnterInitializationMode");
        fmi2Status (*exit_init)(fmi2Component) = symbol(lib, "fmi2ExitInitializationMode");
        fmi2Status (*set_real)(fmi2Component, const fmi2ValueReference *, size_t, const fmi2Real *) =
            symbol(lib, "fmi2SetReal");
        fmi2Status (*get_real)(fmi2Component, const fmi2ValueReference *, size_t, fmi2Real *) =
            symbol(lib, "fmi2GetReal");
        fmi2Status (*do_step)(fmi2Component, fmi2Real, fmi2Real, fmi2Boolean) =
            symbol(lib, "fmi2DoStep");
        fmi2Status (*terminate)(fmi2Component) = symbol(lib, "fmi2Terminate");
        void (*free_instance)(fmi2Component) = symbol(lib, "fmi2FreeInstance");
        fmi2Status (*get_state)(fmi2Component, fmi2FMUstate *) = symbol(lib, "fmi2GetFMUstate");
        fmi2Status (*set_state)(fmi2Component, fmi2FMUstate) = symbol(lib, "fmi2SetFMUstate");
        fmi2Status (*free_state)(fmi2Component, fmi2FMUstate *) = symbol(lib, "fmi2FreeFMUstate");
        fmi2Status (*state_size)(fmi2Component, fmi2FMUstate, size_t *) =
            symbol(lib, "fmi2SerializedFMUstateSize");
        fmi2Status (*serialize)(fmi2Component, fmi2FMUstate, fmi2Byte *, size_t) =
            symbol(lib, "fmi2SerializeFMUstate");
        fmi2Status (*deserialize)(fmi2Component, const fmi2Byte *, size_t, fmi2FMUstate *) =
            symbol(lib, "fmi2DeSerializeFMUstate");

        c = instantiate("driver", 1 /* fmi2CoSimulation */, guid,
                        strcmp(resources, "NULL") == 0 ? NULL : resources, &callbacks, 0, 0);
        if (!c) {
            fprintf(stderr, "driver: fmi2Instantiate returned NULL\n");
            return 3;
        }
        check(setup(c, 0, 0.0, start, 0, 0.0), "fmi2SetupExperiment");
        if (n_set > 0) check(set_real(c, set_vr, (size_t)n_set, set_value), "fmi2SetReal");
        if (initial && n_in > 0) check(set_real(c, in_vr, (size_t)n_in, initial), "fmi2SetReal");
        check(enter_init(c), "fmi2EnterInitializationMode");
        check(exit_init(c), "fmi2ExitInitializationMode");
        k = 0;
        if (restore_at >= 0) {
            FILE *f = fopen(restore_file, "rb");
            long size;
            char *bytes;
            fmi2FMUstate state = NULL;
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
            check(deserialize(c, bytes, (size_t)size, &state), "fmi2DeSerializeFMUstate");
            check(set_state(c, state), "fmi2SetFMUstate");
            check(free_state(c, &state), "fmi2FreeFMUstate");
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
            check(get_real(c, out_vr, (size_t)n_out, out_value), "fmi2GetReal");
            fprintf(out, "%ld", k);
            for (i = 0; i < n_out; i++)
                fprintf(out, " %016llx", (unsigned long long)bits_of(out_value[i]));
            fputc('\n', out);
            if (k == save_at) {
                fmi2FMUstate state = NULL;
                size_t size = 0;
                char *bytes;
                FILE *f;
                check(get_state(c, &state), "fmi2GetFMUstate");
                check(state_size(c, state, &size), "fmi2SerializedFMUstateSize");
                bytes = malloc(size);
                check(serialize(c, state, bytes, size), "fmi2SerializeFMUstate");
                check(free_state(c, &state), "fmi2FreeFMUstate");
                f = fopen(save_file, "wb");
                if (!f || fwrite(bytes, 1, size, f) != size) return 2;
                fclose(f);
                free(bytes);
            }
            if (k == steps) break;
            for (i = 0; i < n_in; i++) in_value[i] = real_of(next());
            if (n_in > 0) check(set_real(c, in_vr, (size_t)n_in, in_value), "fmi2SetReal");
            if (points)
                check(do_step(c, points[k], points[k + 1] - points[k], 1), "fmi2DoStep");
            else
                check(do_step(c, start + (double)k * step, step, 1), "fmi2DoStep");
        }
        fclose(out);
        check(terminate(c), "fmi2Terminate");
        free_instance(c);
    }
    return 0;
}
