#!/bin/sh
# Example deploy step: $1 = branch, $2 = CI build number. Replace the echo with the real work.
set -eu
echo "deploying branch $1 (build #$2)"
