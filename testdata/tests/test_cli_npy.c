/* testdata/tests/test_cli_npy.c — cmd/npy.c against numpy itself: numpy
 * writes every dtype spvjit reads (shapes, byte orders, format versions 1-3)
 * and the C reader must return numpy's own element bytes; the C writer's
 * files must load in numpy as the same elements (npy_peer.py is numpy's side).
 * Malformed files are one-line errors. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#include "cmd/buffer_fill.h"
#include "cmd/npy.h"

#define PYTHON "/usr/bin/python3"

TEST_TIER_FREE(npy_reads_what_numpy_writes_and_numpy_reads_what_it_writes)
{
    char *dir = test_temp_dir("npy"), cmd[512], *out = NULL;
    REQUIRE(dir, "mkdtemp");
    snprintf(cmd, sizeof cmd, PYTHON " %s write %s", test_data_path("tests/npy_peer.py"), dir);
    int st = test_run_capture(cmd, &out);
    REQUIRE(st == 0, "numpy side (write): %s", out);
    free(out);
    char path[600];
    snprintf(path, sizeof path, "%s/index.txt", dir);
    FILE *index = fopen(path, "r");
    REQUIRE(index, "no index.txt");
    char line[512];
    int cases = 0;
    while (fgets(line, sizeof line, index)) {
        char name[64], type[16], shape[400];
        REQUIRE(sscanf(line, "%63s %15s %399[^\n]", name, type, shape) == 3, "index line '%s'", line);
        size_t nlen = 0, blen = 0;
        snprintf(path, sizeof path, "%s/%s.npy", dir, name);
        uint8_t *file = test_read_file(path, &nlen);
        snprintf(path, sizeof path, "%s/%s.bin", dir, name);
        uint8_t *want = test_read_file(path, &blen);
        REQUIRE(file && want, "%s: unreadable", name);
        npy_array a;
        char err[256] = "", got_shape[400];
        CHECK(npy_is_npy(file, nlen), "%s: no magic", name);
        if (npy_parse(file, nlen, &a, err, sizeof err) == 0) {
            npy_shape_text(&a, got_shape, sizeof got_shape);
            CHECK(!strcmp(vtype_name(a.type), type), "%s: type %s, want %s", name, vtype_name(a.type), type);
            CHECK(!strcmp(got_shape, shape), "%s: shape %s, want %s", name, got_shape, shape);
            CHECK(a.count * vtype_size(a.type) == blen && !memcmp(file + a.data_offset, want, blen),
                  "%s: the elements differ from numpy's", name);
            snprintf(path, sizeof path, "%s/%s.out.npy", dir, name);
            CHECK(npy_write(path, a.type, file + a.data_offset, a.count, err, sizeof err) == 0, "%s: write: %s", name,
                  err);
        } else {
            CHECK(0, "%s: %s", name, err);
        }
        free(file);
        free(want);
        cases++;
    }
    fclose(index);
    CHECK(cases >= 15, "only %d cases", cases);
    snprintf(cmd, sizeof cmd, PYTHON " %s check %s", test_data_path("tests/npy_peer.py"), dir);
    st = test_run_capture(cmd, &out);
    char want_ok[32];
    snprintf(want_ok, sizeof want_ok, "ok %d", cases);
    CHECK(st == 0 && strstr(out, want_ok), "numpy side (check): %s", out);
    free(out);
    test_remove_dir(dir);
    free(dir);
}

TEST_TIER_FREE(npy_malformed_files_are_one_line_errors)
{
    static const struct {
        const char *header; /* replaces the dict */
        const char *want;
    } cases[] = {
        { "{'descr': '<f4', 'fortran_order': False}", "lacks 'shape'" },
        { "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}", "structured" },
        { "{'descr': '|b1', 'fortran_order': False, 'shape': (2,)}", "bool" },
        { "{'descr': '<c8', 'fortran_order': False, 'shape': (2,)}", "not a plain number type" },
        { "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,)}", "'fortran_order' is not True or False" },
        { "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 1, 3)}", "Fortran order" },
        { "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}", "unknown key 'extra'" },
        { "{'descr': '<f4', 'fortran_order': False, 'shape': [2]}", "'shape' is not a tuple" },
        { "{'descr': '<f4', 'fortran_order': False, 'shape': (3,)}", "truncated data" },
        { "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", "unexpected data" },
        { "['descr']", "expected a dict" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t file[512];
        size_t hlen = strlen(cases[i].header) + 1;
        memcpy(file, "\x93NUMPY\x01\x00", 8);
        file[8] = (uint8_t)hlen;
        file[9] = 0;
        memcpy(file + 10, cases[i].header, hlen - 1);
        file[10 + hlen - 1] = '\n';
        float data[2] = { 1, 2 };
        memcpy(file + 10 + hlen, data, sizeof data);
        npy_array a;
        char err[256] = "";
        int r = npy_parse(file, 10 + hlen + sizeof data, &a, err, sizeof err);
        CHECK(r == -1 && strstr(err, cases[i].want) && !strchr(err, '\n'), "case %zu: %d '%s', want '%s'", i, r, err,
              cases[i].want);
    }
    uint8_t v9[16] = "\x93NUMPY\x09\x00";
    npy_array a;
    char err[256] = "";
    CHECK(npy_parse(v9, sizeof v9, &a, err, sizeof err) == -1 && strstr(err, "version 9.0"), "version: '%s'", err);
    CHECK(!npy_is_npy("\x93NUMPX", 6) && !npy_is_npy("\x93NUM", 4), "magic");
}

TEST_TIER_FREE(npy_fill_data_from_a_file)
{
    /* @FILE.npy through the DATA parser: elements only, with dtype and shape. */
    char *dir = test_temp_dir("npy"), path[128], cmd[512], *out = NULL;
    REQUIRE(dir, "mkdtemp");
    snprintf(path, sizeof path, "%s/a.npy", dir);
    snprintf(cmd, sizeof cmd,
             PYTHON " -c \"import numpy as np; np.save('%s', np.arange(12, dtype='<i2').reshape(3, 4))\"", path);
    REQUIRE(test_run_capture(cmd, &out) == 0, "numpy: %s", out);
    free(out);
    char spec[140], err[256];
    snprintf(spec, sizeof spec, "@%s", path);
    fill_data f;
    REQUIRE(fill_parse(spec, &f, err, sizeof err) == 0, "%s", err);
    int16_t want[12];
    for (int i = 0; i < 12; i++)
        want[i] = (int16_t)i;
    CHECK(f.size == sizeof want && !memcmp(f.bytes, want, sizeof want) && f.type == SPVJIT_TYPE_I16 &&
              !strcmp(f.npy_shape, "(3, 4)"),
          "size %zu type %s shape %s", f.size, vtype_name(f.type), f.npy_shape);
    fill_free(&f);
    /* a .npy name without the format is an error; other names are raw bytes */
    snprintf(path, sizeof path, "%s/b.npy", dir);
    FILE *w = fopen(path, "wb");
    REQUIRE(w, "write");
    fputs("not numpy", w);
    fclose(w);
    snprintf(spec, sizeof spec, "@%s", path);
    CHECK(fill_parse(spec, &f, err, sizeof err) == -1 && strstr(err, "not a .npy file"), "'%s'", err);
    test_remove_dir(dir);
    free(dir);
}
