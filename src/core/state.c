#include "core/state.h"

lib_state_t state;
