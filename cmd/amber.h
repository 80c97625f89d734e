/* cmd/amber.h — the compute subset of Amber scripts (AmberScript and VkScript).
 *
 * amber_parse.c / amber_vkscript.c turn a script into the model below;
 * amber_buffer.c knows element types, STD140/STD430 layouts, fills and EXPECT
 * evaluation; amber_exec.c compiles the shaders and runs the commands through
 * the public spvjit API; amber_runner.c runs each script in a process of its
 * own (`spvjit amber`) and amber_report.c prints and writes the results.
 * Parsing and evaluation never touch the API, so the tests exercise them
 * without a JIT.
 *
 * What a script needs that spvjit cannot do (graphics pipelines, images,
 * samplers, unsupported device features) does not fail the parse: the script
 * records a skip reason and is reported as `skip: <reason>`.
 */
#ifndef SPVJIT_CMD_AMBER_H
#define SPVJIT_CMD_AMBER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buffer_fill.h"

/* --- element types and layouts ------------------------------------------------- */

/* An Amber data type: a scalar, vecN<scalar> or matCxR<scalar>. */
typedef struct amber_type {
    spvjit_type scalar; /* I8..U64, F16, F32, F64 */
    unsigned rows;      /* vector size (1 for scalars); matrix rows */
    unsigned cols;      /* 1 unless a matrix */
    bool std140;        /* layout; default STD430 */
    bool array;         /* "T[]": the buffer is an array of T (STD140 pads its elements to 16 bytes) */
} amber_type;

/* "int32", "float", "vec3<float>", "mat4x4<double>", "R32G32_SFLOAT", "float[]"... */
int amber_type_parse(const char *name, amber_type *out);
void amber_type_name(const amber_type *t, char *buf, size_t len);
unsigned amber_type_components(const amber_type *t); /* rows * cols */
/* Bytes one element occupies in a buffer (the array stride of the layout). */
size_t amber_type_stride(const amber_type *t);
/* Byte offset of component k (column-major) inside one element. */
size_t amber_type_component_offset(const amber_type *t, unsigned k);

/* --- model ------------------------------------------------------------------------ */

typedef enum amber_shader_format {
    AMBER_SPIRV_ASM,
    AMBER_SPIRV_HEX,
    AMBER_SPIRV_BIN,
    AMBER_GLSL,
    AMBER_OPENCL_C,
    AMBER_HLSL,
    AMBER_OTHER,
} amber_shader_format;

typedef struct amber_shader {
    char *name;
    bool compute; /* SHADER compute (others make the pipeline skip) */
    amber_shader_format format;
    char *source; /* inline text, or the file's text / bytes */
    size_t source_len;
    char *target_env; /* TARGET_ENV or NULL */
    int line;
} amber_shader;

typedef struct amber_buffer {
    char *name;
    amber_type type;
    uint8_t *data; /* element_count * stride bytes (at least 1 allocated) */
    size_t size;   /* bytes */
    uint64_t element_count;
    bool is_image; /* FORMAT buffer of an image format, WIDTH/HEIGHT ...: skip when used */
    int line;
} amber_buffer;

typedef enum amber_bind_kind {
    AMBER_BIND_STORAGE,
    AMBER_BIND_UNIFORM,
    AMBER_BIND_STORAGE_DYNAMIC,
    AMBER_BIND_UNIFORM_DYNAMIC,
    AMBER_BIND_PUSH_CONSTANT,
    AMBER_BIND_KERNEL_ARG, /* BIND BUFFER x [AS ...] KERNEL ARG_NAME|ARG_NUMBER */
} amber_bind_kind;

typedef struct amber_binding {
    amber_bind_kind kind;
    unsigned buffer; /* index into script buffers */
    uint32_t set, binding;
    uint32_t element; /* BIND BUFFER_ARRAY: the descriptor array element */
    uint64_t offset;  /* dynamic OFFSET + DESCRIPTOR_OFFSET */
    uint64_t range;   /* DESCRIPTOR_RANGE, 0: to the end */
    char *arg_name;   /* kernel arg by name, or NULL (then arg_number) */
    uint32_t arg_number;
    int line;
} amber_binding;

typedef struct amber_kernel_value { /* SET KERNEL ARG_NAME|ARG_NUMBER x AS type value */
    char *arg_name;
    uint32_t arg_number;
    spvjit_type type;
    uint8_t bytes[8];
    int line;
} amber_kernel_value;

typedef struct amber_spec { /* ATTACH ... SPECIALIZE id AS type value */
    uint32_t id;
    spvjit_type type;
    uint64_t bits;
} amber_spec;

typedef struct amber_pipeline {
    char *name;
    bool compute;
    int shader;  /* index into shaders, -1 if none attached */
    char *entry; /* default "main" */
    amber_spec *specs;
    unsigned nspecs;
    amber_binding *binds;
    unsigned nbinds;
    amber_kernel_value *kvals;
    unsigned nkvals;
    char *compile_options; /* COMPILE_OPTIONS for the shader (OPENCL-C), space separated, or NULL */
    char **opt_flags;      /* SHADER_OPTIMIZATION: SPIRV-Tools optimizer flags for the shader */
    unsigned nopt_flags;
    /* SUBGROUP (VK_EXT_subgroup_size_control): the size asked for (0: the
     * device's default), and whether sub-groups must be full */
    uint32_t subgroup_size;
    bool full_subgroups;
    char *skip; /* why it cannot run here, or NULL */
    int line;
} amber_pipeline;

/* The sub-group sizes a SUBGROUP block may ask for (minSubgroupSize,
 * maxSubgroupSize: every power of two between); 1 (no SIMD lanes) is
 * honoured too. */
#define AMBER_MIN_SUBGROUP_SIZE 4u
#define AMBER_MAX_SUBGROUP_SIZE 64u

typedef enum amber_cmp { AMBER_EQ, AMBER_NE, AMBER_LT, AMBER_LE, AMBER_GT, AMBER_GE } amber_cmp;

typedef enum amber_cmd_kind {
    AMBER_CMD_RUN,
    AMBER_CMD_COPY,
    AMBER_CMD_EXPECT,
    AMBER_CMD_EXPECT_EQ_BUFFER,
    AMBER_CMD_EXPECT_RMSE_BUFFER,
    AMBER_CMD_REPEAT,     /* the next `body` commands, `count` times */
    AMBER_CMD_SET_PUSH,   /* VkScript: write bytes into the push-constant block */
    AMBER_CMD_SET_BUFFER, /* VkScript: write bytes into a buffer (grows it) */
} amber_cmd_kind;

typedef struct amber_tolerance {
    double value;
    bool percent;
} amber_tolerance;

typedef struct amber_cmd {
    amber_cmd_kind kind;
    int line;
    unsigned pipeline;         /* RUN */
    uint32_t groups[3];        /* RUN */
    uint64_t global_offset[3]; /* RUN ... GLOBAL_OFFSET x y z (spvjit extension, OpenCL kernels) */
    uint32_t work_dim;         /* RUN ... WORK_DIM n (spvjit extension, OpenCL kernels); 0: 3 */
    unsigned buffer, buffer2;  /* COPY from→to; EXPECT; EQ_BUFFER/RMSE second */
    uint64_t offset;           /* EXPECT IDX (bytes); SET_*: byte offset */
    amber_cmp cmp;
    amber_tolerance tol[4];
    unsigned ntol;
    double rmse_tolerance;
    num_value *values; /* EXPECT values */
    unsigned nvalues;
    amber_type value_type; /* VkScript probes / SET_*: the type the values are in */
    bool has_value_type;
    uint8_t *bytes; /* SET_*: encoded data */
    size_t nbytes;
    unsigned count, body; /* REPEAT */
} amber_cmd;

typedef struct amber_script {
    char *path; /* for messages */
    amber_shader *shaders;
    unsigned nshaders;
    amber_buffer *buffers;
    unsigned nbuffers;
    amber_pipeline *pipelines;
    unsigned npipelines;
    amber_cmd *cmds;
    unsigned ncmds;
    char **features; /* DEVICE_FEATURE names */
    unsigned nfeatures;
    char **extensions; /* DEVICE_EXTENSION / INSTANCE_EXTENSION names */
    unsigned nextensions;
    char **properties; /* DEVICE_PROPERTY names (boolean properties that must hold) */
    unsigned nproperties;
    char *skip; /* whole-script skip reason (graphics, images, ...), or NULL */
    /* VkScript: the implicit pipeline uses buffers by binding; -1 if none */
    int push_buffer;
    bool vkscript; /* buffers the shader declares but the script never sized grow to fit */
} amber_script;

/* --- parsing ------------------------------------------------------------------------ */

/* Parses script text (AmberScript when it starts with "#!amber", VkScript
 * otherwise).  `path` names the script in messages and anchors relative FILE
 * paths.  Returns 0, or -1 with "PATH:LINE: message" in err. */
int amber_parse(const char *text, size_t len, const char *path, amber_script *out, char *err, size_t errlen);
int amber_parse_file(const char *path, amber_script *out, char *err, size_t errlen);
void amber_script_free(amber_script *s);

/* Internal to the parsers: VkScript entry. */
int amber_parse_vkscript(const char *text, size_t len, const char *path, amber_script *s, char *err, size_t errlen);

/* --- buffers and expectations (amber_buffer.c) -------------------------------------------- */

/* Encodes the n values into a fresh buffer of type t (n must be a multiple of
 * the component count unless `partial_ok`).  Floats accept ints; ints reject
 * floats.  Returns 0 or -1 with err. */
int amber_buffer_set_values(amber_buffer *b, const num_value *v, uint64_t n, char *err, size_t errlen);
/* FILL / SERIES_FROM over `count` elements. */
int amber_buffer_fill(amber_buffer *b, uint64_t count, const num_value *value, char *err, size_t errlen);
int amber_buffer_series(amber_buffer *b, uint64_t count, const num_value *start, const num_value *inc, char *err,
                        size_t errlen);
/* Before a buffer is bound: places it at an AMBER_BUFFER_ALIGN boundary (as
 * device memory is: OpenCL's CL_DEVICE_MEM_BASE_ADDR_ALIGN, Vulkan's memory
 * alignment; a kernel may store a float8 with 32-byte aligned vector stores).
 * It is bound with its own size: an access past it is the memory mode's
 * (robust: dropped, as robustBufferAccess2 drops it). */
#define AMBER_BUFFER_ALIGN 256
int amber_buffer_guard(amber_buffer *b);
/* Grows a buffer (zero filled) to at least `bytes`. */
int amber_buffer_reserve(amber_buffer *b, size_t bytes);

/* Writes v[0..n) as type t starting at byte `offset` of dst (layout of t:
 * components at their offsets, elements at the stride).  Returns 0 or -1. */
int amber_encode_values(const amber_type *t, const num_value *v, unsigned n, uint8_t *dst, size_t dst_size,
                        uint64_t offset, char *err, size_t errlen);

/* Evaluates an EXPECT-type command against the current buffer contents.
 * Returns 0 if it holds, 1 with "expected ... got ..." in msg if not, -1 if
 * it cannot be evaluated (reads past the end ...; message in msg). */
int amber_expect_eval(const amber_script *s, const amber_cmd *c, char *msg, size_t msglen);

/* COPY: replaces `to`'s contents with `from`'s (type, size and bytes). */
int amber_buffer_copy(amber_buffer *to, const amber_buffer *from);

/* --- running (amber_exec.c) ------------------------------------------------------------------ */

/* CRASH is what the runner (amber_runner.c) sees of a script's process; TIMEOUT
 * a dispatch past the script's time limit, or the runner's kill after it. */
typedef enum amber_result {
    AMBER_PASS,
    AMBER_FAIL,
    AMBER_SKIP,
    AMBER_CRASH,
    AMBER_TIMEOUT,
    AMBER_RESULT_COUNT
} amber_result;

/* Runs one parsed script; msg gets the fail/skip reason. */
amber_result amber_run_script(amber_script *s, char *msg, size_t msglen);
/* Parses and runs the script at path, then releases everything it made
 * (the spvjit context included): one script per process. */
amber_result amber_run_path(const char *path, char *msg, size_t msglen);

/* The target environment of shaders without TARGET_ENV (spvjit amber --target-env). */
void amber_set_default_target_env(const char *env);
/* The compile tier of every pipeline (spvjit amber --tier; DEFAULT: $SPVJIT_TIER, else auto). */
void amber_set_tier(spvjit_tier tier);
/* Before the runner forks: builds glslang's built-in symbol tables for the
 * GLSL versions that several of the scripts use, so that every child process
 * inherits them instead of parsing the built-ins again (most of a small
 * script's time).  Holds no threads and no spvjit state. */
void amber_warm_compilers(char *const *paths, unsigned n);
/* The memory mode of the scripts' kernels (0: the library's default) and the
 * time a script's dispatches may take together (0: no limit). */
void amber_set_run_options(spvjit_memory memory, double timeout_s);

/* Device features / extensions spvjit provides (NULL-terminated lists). */
bool amber_feature_supported(const char *name);
bool amber_extension_supported(const char *name);
bool amber_property_supported(const char *name);

#endif
