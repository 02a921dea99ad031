/**
 * The built-in install script (used when a dynamic role has none): adds or removes one line in
 * the target user's authorized_keys. Called as `script install|uninstall <key file>
 * <authorized_keys path> <user>`: a role's own script gets the reference interface, the first
 * three arguments only; the built-in one also needs the user, to own what it creates.
 */
export const BUILT_IN_INSTALL_SCRIPT = `#!/bin/sh
# Latchkey built-in install script: install|uninstall <public key file> <authorized_keys path> <user>
set -eu
op="$1"; keyfile="$2"; auth="$3"; user="$4"
run() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo -n "$@"; fi; }
if ! getent passwd "$user" >/dev/null; then
  if [ "$op" = uninstall ]; then exit 0; fi
  echo "no such user: $user" >&2; exit 1
fi
group=$(id -gn "$user")
dir=$(dirname "$auth")
key=$(cat "$keyfile")
if [ "$op" = uninstall ] && ! run test -f "$auth"; then exit 0; fi
run mkdir -p "$dir"
run touch "$auth"
tmp=$(mktemp)
run cat "$auth" | grep -vxF -- "$key" > "$tmp" || true
if [ "$op" = install ]; then printf '%s\\n' "$key" >> "$tmp"; fi
run cp "$tmp" "$auth"
rm -f "$tmp"
run chown "$user:$group" "$dir" "$auth"
run chmod 700 "$dir"
run chmod 600 "$auth"
`;
