// Generated from VERSION by scripts/generate-version.sh (make generate): do not edit.

/** The version of the API and of every mercado client. */
export const VERSION = "0.1.0";
