// cmd/spirv_optimize.cpp — the C shim over spvtools::Optimizer (see spirv_optimize.h).
#include "spirv_optimize.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <spirv-tools/optimizer.hpp>

static int fail(char *err, size_t errlen, const std::string &what, const std::string &messages)
{
    std::string m = what + (messages.empty() ? "" : ": " + messages);
    for (char &c : m)
        if (c == '\n' || c == '\r')
            c = ' ';
    while (!m.empty() && m.back() == ' ')
        m.pop_back();
    if (err && errlen)
        std::snprintf(err, errlen, "%s", m.c_str());
    return -1;
}

extern "C" int spirv_optimize(int target_env, const uint32_t *words, size_t nwords, const char *const *flags,
                              size_t nflags, uint32_t **out, size_t *nout, char *err, size_t errlen)
{
    *out = nullptr;
    *nout = 0;
    try {
        std::string messages;
        spvtools::Optimizer opt(static_cast<spv_target_env>(target_env));
        opt.SetMessageConsumer(
            [&messages](spv_message_level_t level, const char *, const spv_position_t &pos, const char *msg) {
                if (level > SPV_MSG_ERROR) // warnings and below are not failures
                    return;
                if (!messages.empty())
                    messages += "; ";
                messages += msg;
                if (pos.index)
                    messages += " (word " + std::to_string(pos.index) + ")";
            });
        std::vector<std::string> list(flags, flags + nflags);
        if (!opt.RegisterPassesFromFlags(list))
            return fail(err, errlen, "invalid optimization flags", messages);
        std::vector<uint32_t> result;
        if (!opt.Run(words, nwords, &result))
            return fail(err, errlen, "the optimizer failed", messages);
        uint32_t *w = static_cast<uint32_t *>(std::malloc(result.size() * sizeof(uint32_t) + 4));
        if (!w)
            return fail(err, errlen, "out of memory", "");
        std::memcpy(w, result.data(), result.size() * sizeof(uint32_t));
        *out = w;
        *nout = result.size();
        return 0;
    } catch (const std::exception &e) {
        return fail(err, errlen, "the optimizer failed", e.what());
    } catch (...) {
        return fail(err, errlen, "the optimizer failed", "");
    }
}
