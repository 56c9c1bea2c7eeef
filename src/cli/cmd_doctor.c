/* cmd_doctor.c - 'benchrun doctor' (not built yet: see the open issue for it). */
#include "cli/cli.h"

#include <string.h>

int cmd_doctor(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: benchrun doctor ...\n\nThis command is not implemented yet.\n");
        return BR_EXIT_OK;
    }
    br_error("doctor: not implemented yet");
    return BR_EXIT_FAIL;
}
