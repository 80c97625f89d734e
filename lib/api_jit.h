/* lib/api_jit.h — the one place lib/'s API code includes jit/jit.h.
 *
 * The JIT's compiled-kernel object is `jit_kernel` (it was `spvjit_kernel`,
 * which clashed with the public handle of lib/spvjit.h); keeping the include
 * in one header keeps the two namespaces from meeting anywhere else.
 */
#ifndef SPVJIT_LIB_API_JIT_H
#define SPVJIT_LIB_API_JIT_H

#include "jit/jit.h"

#endif
