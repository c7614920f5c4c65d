/* protocol: the engine protocol of `sowzero engine`, a GTP-style line
 * protocol for front ends and tools (documented in docs/PROTOCOL.md).
 *
 * Each command line gets one response: "= result" or "? message", then an
 * empty line. A command may start with a numeric id, echoed after = or ?.
 * An illegal or malformed command leaves the session unchanged.
 *
 * The session is a handle owned by one thread; it writes nothing itself:
 * proto_handle fills a buffer that the caller prints. */
#ifndef SOWZERO_PROTOCOL_H
#define SOWZERO_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

typedef struct proto proto;

/* A session playing default Oware with the random agent; seed fixes the
 * agents' random choices. NULL on allocation failure. */
proto *proto_create(uint64_t seed);
void proto_free(proto *s);
/* Lends the session an opened endgame database for the `egdb` command
 * (NULL: none); the caller keeps it open while the session lives. */
struct egdb;
void proto_set_egdb(proto *s, const struct egdb *db);
/* Where the agents' egdb=on finds the database from the next `agent` or
 * `game` on (agent_params.egdb_dir; NULL or "": egdb_default_dir's choice). */
void proto_set_egdb_dir(proto *s, const char *dir);

/* Handles one command line (without or with its newline) and writes the
 * whole response, ending in an empty line, into out. Returns 1 after
 * `quit`, else 0. Blank lines and # comments get no response (out = ""). */
int proto_handle(proto *s, const char *line, char *out, size_t outlen);
/* The same for a line of len bytes that may hold NUL bytes (as read from a
 * stream): such a line is answered with an error, like any bad line. */
int proto_handle_bytes(proto *s, const char *line, size_t len, char *out, size_t outlen);

/* The longest response a command can produce (board drawings, analysis). */
#define PROTO_MAX_RESPONSE 8192
/* The longest command line (a whole game's `moves` fits). */
#define PROTO_MAX_LINE     16384

#endif
