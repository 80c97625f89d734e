// testdata/jit/oob_export.cl — an exported function indexing a Function array
// by its argument (test_api_memory.c: memory=check reports an index out of
// range from spvjit_call_exported; robust reads zero).
int nth(int i, int v)
{
    int t[4] = { v, v + 1, v + 2, v + 3 };
    return t[i];
}
