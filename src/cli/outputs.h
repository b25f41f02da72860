// The kinds of file the commands write and their output policies live in the application layer
// (sbufsim/app/outputs.h); the commands see them through cli.h.
#pragma once

#include "cli/cli.h"
