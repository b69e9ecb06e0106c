#!/usr/bin/env bash
# Generates every language's code, and the API reference, from proto/ (make generate). Generated
# code is never edited by hand.
set -euo pipefail
cd "$(dirname "$0")"
for part in version python go typescript docs; do
  "./generate-$part.sh"
done
