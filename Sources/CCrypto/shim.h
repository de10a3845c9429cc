#ifndef MIDICCIO_CCRYPTO_SHIM_H
#define MIDICCIO_CCRYPTO_SHIM_H
// OpenSSL's libcrypto, for the two things a Google sign-in needs: random bytes from
// the system's secure generator (RAND_bytes) and SHA-256 (EVP_Digest), the PKCE
// challenge of RFC 7636.
#include <openssl/evp.h>
#include <openssl/rand.h>
#endif
