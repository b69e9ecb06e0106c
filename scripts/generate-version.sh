#!/usr/bin/env bash
# Writes the one version of the API and every client (VERSION) wherever a package states it:
# each client's version constant, the npm packages' version fields and the server's pin of the
# Python client. Edit VERSION, never the copies (make test checks they agree).
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(tr -d '[:space:]' < VERSION)
if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  echo "generate-version: VERSION must be MAJOR.MINOR.PATCH, not '$version'" >&2
  exit 1
fi
header="Generated from VERSION by scripts/generate-version.sh (make generate): do not edit."

printf '"""%s"""\n\n__version__ = "%s"\n' "$header" "$version" > clients/python/mercado_client/_version.py
printf '// Code generated from VERSION by scripts/generate-version.sh (make generate). DO NOT EDIT.\n\npackage mercado\n\n// Version is the version of the API and of every mercado client.\nconst Version = "%s"\n' \
  "$version" > clients/go/mercado/version.go
printf '// %s\n\n/** The version of the API and of every mercado client. */\nexport const VERSION = "%s";\n' \
  "$header" "$version" > clients/typescript/src/version.ts

# The npm packages and their lockfiles (the root package's entry only).
for dir in clients/typescript clients/web; do
  node - "$dir" "$version" <<'JS'
const fs = require("node:fs");
const [dir, version] = process.argv.slice(2);
for (const file of ["package.json", "package-lock.json"]) {
  const path = `${dir}/${file}`;
  const text = fs.readFileSync(path, "utf8");
  const json = JSON.parse(text);
  json.version = version;
  if (json.packages?.[""]) json.packages[""].version = version;
  const out = JSON.stringify(json, null, 2) + "\n";
  if (out !== text) fs.writeFileSync(path, out);
}
JS
done

# The server and the AI depend on the Python client of the same version.
sed -i -E "s/\"mercado-client==[^\"]*\"/\"mercado-client==$version\"/" pyproject.toml

# Each client package ships the project's licence.
for dir in clients/python clients/typescript clients/go; do
  cmp -s LICENSE "$dir/LICENSE" || cp LICENSE "$dir/LICENSE"
done
