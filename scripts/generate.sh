#!/usr/bin/env bash
# Generates every language's code from proto/ (make generate). Generated code is never edited by hand.
set -euo pipefail
cd "$(dirname "$0")"
for language in python go typescript; do
  "./generate-$language.sh"
done
