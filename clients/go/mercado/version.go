// Code generated from VERSION by scripts/generate-version.sh (make generate). DO NOT EDIT.

package mercado

// Version is the version of the API and of every mercado client.
const Version = "0.1.0"
