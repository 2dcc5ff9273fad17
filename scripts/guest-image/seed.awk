# Reads the NoCloud seed the way the Irontech driver writes it (a subset of #cloud-config): meta-data's
# local-hostname, user-data's hostname, the first user's name, plain_text_passwd and ssh_authorized_keys.
# Values may be YAML single-quoted ('' is a quote) or plain. Writes <out>/{hostname,user,password,keys} (awk -v out=DIR).
function unquote(v) {
  sub(/^[ \t]+/, "", v); sub(/[ \t\r]+$/, "", v)
  if (v ~ /^'.*'$/) { v = substr(v, 2, length(v) - 2); gsub(/''/, "'", v) }
  else if (v ~ /^".*"$/) { v = substr(v, 2, length(v) - 2) }
  return v
}
function value(line) { sub(/^[^:]*:/, "", line); return unquote(line) }
/^local-hostname:/ || /^hostname:/ { h = value($0); if (h != "") { printf "%s\n", h > (out "/hostname"); close(out "/hostname") } ; next }
/^ *- name:/ && user == "" { user = value($0); printf "%s\n", user > (out "/user"); next }
/^ *plain_text_passwd:/ || /^password:/ { printf "%s", value($0) > (out "/password"); next }
/^ *ssh_authorized_keys:/ { inkeys = 1; next }
inkeys && /^ *- / { k = $0; sub(/^ *- /, "", k); printf "%s\n", unquote(k) > (out "/keys"); next }
{ inkeys = 0 }
