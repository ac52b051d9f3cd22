/* loader_dep.c - a library a test kernel brings in its own folder (DT_NEEDED sibling). */
int loader_dep_value(void);

int loader_dep_value(void)
{
    return 4242;
}
