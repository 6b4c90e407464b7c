#!/bin/bash
# Rendered by metal3-ironic. Starts keepalived with a VRRP virtual router id and password (the
# keepalived image's own template fixes router id 1 and has no authentication): writes that template
# to /etc/keepalived/keepalived.conf, keeping the image's two placeholders (INTERFACE: the first VIP's
# interface; CHANGEIP: every VIP of KEEPALIVED_VIRTUAL_IPS), then runs the image's manage-keepalived.sh,
# which fills them in and runs keepalived. The password is read from the mounted Secret file, never
# from the environment, and never printed.
set -euo pipefail

fatal() {
  echo "FATAL: keepalived-start: $*" >&2
  exit 1
}

conf=/etc/keepalived/keepalived.conf
vrid="${METAL3_VRRP_ROUTER_ID:-1}"
if [[ ! "$vrid" =~ ^[0-9]{1,3}$ ]] || ((vrid < 1 || vrid > 255)); then
  fatal "METAL3_VRRP_ROUTER_ID '$vrid' is not a VRRP virtual router id (1-255); set keepalived.virtualRouterId"
fi

auth=""
if [[ -n "${METAL3_VRRP_PASSWORD_FILE:-}" ]]; then
  [[ -r "$METAL3_VRRP_PASSWORD_FILE" ]] || fatal "cannot read the VRRP password $METAL3_VRRP_PASSWORD_FILE as uid $(id -u): is keepalived.passwordSecret's Secret there, with its key?"
  password=$(<"$METAL3_VRRP_PASSWORD_FILE")
  password="${password%$'\r'}"
  # keepalived uses the first 8 characters; '!', '#', '"', '$' and blanks are keepalived.conf syntax.
  if [[ ! "$password" =~ ^[A-Za-z0-9._+=@%^*-]{1,8}$ ]]; then
    fatal "the VRRP password in keepalived.passwordSecret must be 1-8 characters of letters, digits and ._+=@%^*- (got ${#password} characters, or others); keepalived uses at most 8"
  fi
  # The image's script replaces these words anywhere in the file.
  [[ "$password" != *CHANGEIP* ]] || fatal "the VRRP password must not contain CHANGEIP (the image's placeholder)"
  auth=$(printf '    authentication {\n        auth_type PASS\n        auth_pass %s\n    }\n' "$password")
fi

{
  # Not the placeholders' names in this comment: the image's script replaces them anywhere in the file.
  echo "! Written by metal3-ironic's keepalived-start.sh; the image's manage-keepalived.sh fills in the interface and the VIPs."
  echo "vrrp_instance VI_1 {"
  echo "    state MASTER"
  echo "    interface INTERFACE"
  echo "    virtual_router_id $vrid"
  echo "    priority 101"
  echo "    advert_int 1"
  if [[ -n "$auth" ]]; then printf '%s\n' "$auth"; fi
  echo "    virtual_ipaddress {"
  echo "        CHANGEIP"
  echo "    }"
  echo "}"
} >"$conf"
echo "keepalived-start: virtual router id $vrid, VRRP authentication $([[ -n "$auth" ]] && echo on || echo off)"
exec "$@"
