#!/bin/sh
# Runs when the code-hosting service pings the hook: $1 = delivery id, $2 = repository.
# Its output lands in the hook runner's log (-verbose).
echo "ping from ${2:-an unknown repository} (delivery ${1:-unknown})"
