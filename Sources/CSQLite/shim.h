#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import: the same value
// as a function SQLite is told to copy the bytes with.
static inline sqlite3_destructor_type vigil_sqlite_transient(void) { return SQLITE_TRANSIENT; }
