#!/bin/sh
# Vantage probe node installer.
#
#   curl -fsSL https://vantage.example.com/install.sh | VANTAGE_TOKEN=ent_... sh
#
# The enrollment token comes from the environment (VANTAGE_TOKEN) or a file (--token-file), never
# from the command line: a process's arguments are readable by every user on the host (ps), and
# this script passes the token to nothing on a command line either (environment and 0600 files).
#
# Installs the Vantage node agent as a systemd service that runs as an unprivileged system user
# with only CAP_NET_RAW (for ICMP ping and traceroute), enrolls it with the control plane and
# prints the node id. Running it again upgrades in place (an enrolled node keeps its identity).
#
# Options (also printed by --help): see USAGE below.
# Files: <prefix>/releases/<version>/, <prefix>/current -> releases/<version>,
#   /etc/vantage/agent.json (0600, owned by the service user), /var/lib/vantage-agent/ (0700),
#   /etc/systemd/system/vantage-agent.service (User=vantage-agent, CAP_NET_RAW only).
# Environment: VANTAGE_TOKEN (the enrollment token). Tests only: VANTAGE_ROOT=/some/dir prefixes
#   every system path above;
#   VANTAGE_FORCE_REBUILD=1 rebuilds the native modules even when the Node ABI matches.
# Needs: root, curl or wget, tar, sha256sum (or shasum / openssl), Node.js >= 20.18 (installed
#   with apt-get or dnf when missing). Exit status: 0 done, 1 failed, 2 bad usage, 3 installed but
#   not running (no systemd: it prints the command that runs the agent; with --no-start this is 0).
#
# Everything runs inside main, called on the last line, so a truncated download runs nothing.
set -eu

# Replaced by the control plane when it serves this script (GET /install.sh): its VANTAGE_PUBLIC_URL,
# or __VANTAGE_NO_PUBLIC_URL__ when that is not set (then --url is needed).
DEFAULT_URL='__VANTAGE_BASE_URL__'

USAGE='usage: VANTAGE_TOKEN=ent_... install.sh [options]        (as root)
       install.sh --token-file FILE [options]

  VANTAGE_TOKEN       (environment) enrollment token (POST /v1/enrollment-tokens); needed on
                      the first install, ignored by a node that is already enrolled
  --token-file FILE   read the enrollment token from FILE instead (its first line)
  --url URL           control-plane base URL (default: the URL this script was served from)
  --name NAME         node name reported at enrollment (default: the host name)
  --allow-private     let this node probe private, loopback and link-local addresses
  --allow-cidrs LIST  comma-separated CIDR ranges this node may probe even when private
  --with-browser      also install Chromium (apt-get or dnf package chromium) so this node can
                      run browser checks; it advertises the browser capability only when
                      Chromium starts
  --prefix DIR        install folder (default /opt/vantage-agent)
  --user NAME         run as this existing user instead of creating the vantage-agent user
  --foreground        where systemd is absent: run the agent in the foreground (exec)
  --no-start          install and configure, but do not start the service or wait for it
                      (without systemd: print the command that runs the agent and exit 0)
  --wait SECONDS      how long to wait for the node to enroll (default 90)
  --uninstall         stop and remove the service, install folder, config, state and user
  --yes               answer yes to every question (needed when there is no terminal)
  --help              print this help

Running it again upgrades in place; an enrolled node keeps its identity.
Exit status: 0 done; 1 failed; 2 bad usage; 3 installed, but nothing runs it (no systemd here:
run the printed command under your supervisor, or use --foreground; --no-start makes this 0).'

say() { printf '%s\n' "vantage: $*" >&2; }
die() { printf '%s\n' "vantage: error: $*" >&2; exit 1; }
usage_error() { printf '%s\n' "vantage: $*" "Run with --help for the options." >&2; exit 2; }
have() { command -v "$1" >/dev/null 2>&1; }

print_help() { printf '%s\n' "$USAGE"; }

parse_args() {
  TOKEN=''; TOKEN_FILE=''; URL=''; NAME=''; ALLOW_PRIVATE=0; ALLOW_CIDRS=''; PREFIX='/opt/vantage-agent'
  RUN_USER=''; FOREGROUND=0; NO_START=0; UNINSTALL=0; YES=0; WAIT_S=90; WITH_BROWSER=0
  while [ $# -gt 0 ]; do
    opt=$1
    case $opt in
      --*=*) val=${opt#*=}; opt=${opt%%=*}; has_val=1 ;;
      *) val=''; has_val=0 ;;
    esac
    case $opt in
      --token)
        usage_error "--token is not accepted: arguments are visible to every user in the process list. Give the token in the environment (curl -fsSL <url>/install.sh | VANTAGE_TOKEN=ent_... sh) or in a file (--token-file FILE)" ;;
      --token-file|--url|--name|--allow-cidrs|--prefix|--user|--wait)
        if [ "$has_val" -eq 0 ]; then
          [ $# -ge 2 ] || usage_error "$opt needs a value"
          val=$2; shift
        fi
        case $opt in
          --token-file) TOKEN_FILE=$val ;;
          --url) URL=$val ;;
          --name) NAME=$val ;;
          --allow-cidrs) ALLOW_CIDRS=$val ;;
          --prefix) PREFIX=$val ;;
          --user) RUN_USER=$val ;;
          --wait) WAIT_S=$val ;;
        esac ;;
      --allow-private) ALLOW_PRIVATE=1 ;;
      --with-browser) WITH_BROWSER=1 ;;
      --foreground) FOREGROUND=1 ;;
      --no-start) NO_START=1 ;;
      --uninstall) UNINSTALL=1 ;;
      --yes|-y) YES=1 ;;
      --help|-h) print_help; exit 0 ;;
      *) usage_error "unknown option: $opt" ;;
    esac
    shift
  done
  validate_args
}

read_token() {
  # The token from --token-file or VANTAGE_TOKEN (both: an error). VANTAGE_TOKEN is then removed
  # from the environment so no command this script runs inherits it.
  TOKEN=${VANTAGE_TOKEN:-}
  unset VANTAGE_TOKEN
  token_from=VANTAGE_TOKEN
  if [ -n "$TOKEN_FILE" ]; then
    [ -z "$TOKEN" ] || usage_error "give the token once: VANTAGE_TOKEN or --token-file, not both"
    if [ ! -f "$TOKEN_FILE" ] || [ ! -r "$TOKEN_FILE" ]; then usage_error "--token-file $TOKEN_FILE: no such readable file"; fi
    IFS= read -r TOKEN <"$TOKEN_FILE" || true
    [ -n "$TOKEN" ] || usage_error "--token-file $TOKEN_FILE is empty"
    TOKEN=$(printf '%s' "$TOKEN" | tr -d ' \t\r')
    token_from="--token-file $TOKEN_FILE"
  fi
  case $TOKEN in ''|ent_*) ;; *) usage_error "$token_from must hold an enrollment token (ent_...)" ;; esac
  case $TOKEN in *[!A-Za-z0-9_]*) usage_error "$token_from has unexpected characters" ;; esac
}

validate_args() {
  read_token
  case $WAIT_S in ''|*[!0-9]*) usage_error "--wait needs a number of seconds" ;; esac
  case $PREFIX in /*) ;; *) usage_error "--prefix must be an absolute path" ;; esac
  case $PREFIX in *[!A-Za-z0-9/._-]*) usage_error "--prefix may only hold letters, digits and / . _ -" ;; esac
  case $PREFIX in /|*/|*/.|*/./*|*/..|*/../*) usage_error "--prefix must name a folder below / (like /opt/vantage-agent)" ;; esac
  case $NAME in *[!A-Za-z0-9._-]*) usage_error "--name may only hold letters, digits and . _ -" ;; esac
  case $ALLOW_CIDRS in *[!0-9A-Fa-f.:/,]*) usage_error "--allow-cidrs takes comma-separated CIDRs (198.18.0.0/15,fd00::/8)" ;; esac
  case $RUN_USER in *[!A-Za-z0-9._-]*) usage_error "--user is not a valid user name" ;; esac
  if [ -z "$URL" ]; then
    case $DEFAULT_URL in *__*) ;; *) URL=$DEFAULT_URL ;; esac
  fi
}

validate_url() {
  URL=${URL%/}
  [ "$UNINSTALL" -eq 1 ] && return 0
  if [ -z "$URL" ]; then
    case $DEFAULT_URL in
      __VANTAGE_NO_PUBLIC_URL__)
        usage_error "--url is required: the control plane that served this script has no VANTAGE_PUBLIC_URL set, so the script does not know where nodes connect (pass --url <its base URL>, or set VANTAGE_PUBLIC_URL on the control plane)" ;;
      *) usage_error "--url is required (the control plane's base URL)" ;;
    esac
  fi
  case $URL in http://*|https://*) ;; *) usage_error "--url must start with http:// or https://" ;; esac
  case $URL in *[!A-Za-z0-9:/._~%@\[\]-]*) usage_error "--url has unexpected characters" ;; esac
}

# Paths; VANTAGE_ROOT (tests only) moves all of them under one folder.
set_paths() {
  ROOT=${VANTAGE_ROOT:-}
  ROOT=${ROOT%/}
  PREFIX_DIR=$ROOT$PREFIX
  CONF_DIR=$ROOT/etc/vantage
  CONF_FILE=$CONF_DIR/agent.json
  STATE_DIR=$ROOT/var/lib/vantage-agent
  UNIT_NAME=vantage-agent.service
  UNIT_FILE=$ROOT/etc/systemd/system/$UNIT_NAME
  SYSTEMD_MARK=$ROOT/run/systemd/system
  META_FILE=$PREFIX_DIR/install.env
  DEFAULT_USER=vantage-agent
}

confirm() {
  # confirm QUESTION: yes with --yes; else asks on the terminal (stdin is this script under curl | sh).
  [ "$YES" -eq 1 ] && return 0
  if (: </dev/tty >/dev/tty) 2>/dev/null; then
    printf '%s [y/N] ' "vantage: $1" >/dev/tty
    read -r answer </dev/tty || answer=''
    case $answer in y|Y|yes|YES) return 0 ;; *) return 1 ;; esac
  fi
  die "$1 (no terminal to ask on: re-run with --yes)"
}

require_root() {
  [ "$(id -u)" -eq 0 ] || die "run as root (for example: curl -fsSL <url>/install.sh | sudo sh -s -- ...)"
}

# --- Node.js -------------------------------------------------------------------------------

node_version_ok() {
  # True when `node` is Node.js >= 20.18 (the agent's undici needs it).
  have node || return 1
  node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>20||(a===20&&b>=18)?0:1)' 2>/dev/null
}

ensure_node() {
  if node_version_ok; then NODE_BIN=$(command -v node); return 0; fi
  if have node; then
    say "Node.js $(node -v 2>/dev/null || echo '?') is too old; Vantage needs Node.js 20.18 or newer."
  else
    say "Node.js is not installed; Vantage needs Node.js 20.18 or newer."
  fi
  if have apt-get; then
    confirm "install Node.js with apt-get?" || die "Node.js is required"
    DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q nodejs npm >&2 || die "apt-get install nodejs failed"
  elif have dnf; then
    confirm "install Node.js with dnf?" || die "Node.js is required"
    dnf install -y nodejs npm >&2 || die "dnf install nodejs failed"
  else
    die "no apt-get or dnf here: install Node.js 20.18 or newer (https://nodejs.org) and re-run"
  fi
  node_version_ok || die "this distribution's Node.js ($(node -v 2>/dev/null || echo none)) is older than 20.18: install a newer one (https://nodejs.org/en/download, or your distribution's nodejs module stream) and re-run"
  NODE_BIN=$(command -v node)
}

# --- download and verify --------------------------------------------------------------------

fetch() {
  # fetch URL FILE: downloads URL into FILE. On an HTTP error it prints the control plane's own
  # reason (curl -f would hide it behind "error: 503").
  rm -f "$2"
  if have curl; then
    code=$(curl -sSL --retry 3 -o "$2" -w '%{http_code}' "$1") || die "download failed: $1"
    case $code in 2??) return 0 ;; esac
    die "download failed: $1 answered HTTP $code: $(server_message "$2")"
  elif have wget; then
    # GNU wget keeps an error response's body with --content-on-error; BusyBox wget has no such option.
    content=''
    wget --help 2>&1 | grep -q content-on-error && content=--content-on-error
    # shellcheck disable=SC2086
    wget -q $content -O "$2" "$1" && return 0
    [ -s "$2" ] && die "download failed: $1: $(server_message "$2")"
    die "download failed: $1"
  else die "neither curl nor wget is installed"
  fi
}

server_message() {
  # server_message FILE: the reason in an error body (the API's {"error":{"code","message"}}), else
  # the start of the body; printable ASCII only (the body goes to a terminal).
  VI_FILE=$1 "$NODE_BIN" -e '
    const fs = require("fs"); let text = "";
    try { text = fs.readFileSync(process.env.VI_FILE, "utf8"); } catch {}
    let out = text.replace(/\s+/g, " ").trim().slice(0, 300);
    try { const e = JSON.parse(text).error; if (e && (e.code || e.message)) out = [e.code, e.message].filter(Boolean).join(": "); } catch {}
    console.log((out || "(empty reply)").replace(/[^\x20-\x7e]/g, "?"));
  ' 2>/dev/null || printf '%s\n' '(unreadable reply)'
}

sha256_of() {
  if have sha256sum; then sha256sum "$1" | cut -d ' ' -f 1
  elif have shasum; then shasum -a 256 "$1" | cut -d ' ' -f 1
  elif have openssl; then openssl dgst -sha256 -r "$1" | cut -d ' ' -f 1
  else die "no sha256sum, shasum or openssl to verify the download"
  fi
}

download_bundle() {
  # Downloads and verifies the bundle into $WORK/agent.tar.gz.
  say "downloading the agent from $URL/install/agent.tar.gz"
  fetch "$URL/install/agent.tar.gz.sha256" "$WORK/agent.tar.gz.sha256"
  fetch "$URL/install/agent.tar.gz" "$WORK/agent.tar.gz"
  expected=$(cut -d ' ' -f 1 <"$WORK/agent.tar.gz.sha256")
  actual=$(sha256_of "$WORK/agent.tar.gz")
  case $expected in *[!0-9a-f]*|'') die "the checksum file from $URL is not a sha256" ;; esac
  [ "$expected" = "$actual" ] || die "checksum mismatch: expected $expected, got $actual (download corrupted or tampered with)"
  say "checksum ok ($actual)"
}

# --- release folder ---------------------------------------------------------------------------

rebuild_native() {
  # rebuild_native DIR: recompiles the bundled native modules for this Node.js (npm rebuild).
  if ! have make || ! { have c++ || have g++; } || ! have python3 || ! have npm; then
    if have apt-get; then
      confirm "install build tools (build-essential, python3, npm) to compile the native modules?" || die "build tools are required"
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q build-essential python3 npm >&2 || die "apt-get install of the build tools failed"
    elif have dnf; then
      confirm "install build tools (make, gcc-c++, python3, npm) to compile the native modules?" || die "build tools are required"
      dnf install -y make gcc-c++ python3 npm >&2 || die "dnf install of the build tools failed"
    else
      die "make, a C++ compiler, python3 and npm are needed to compile the native modules"
    fi
  fi
  say "compiling the native modules for this Node.js (about a minute)"
  (cd "$1" && npm rebuild --foreground-scripts >&2) || die "npm rebuild of the native modules failed (see above)"
}

install_release() {
  # Unpacks $WORK/agent.tar.gz into <prefix>/releases/<version> and switches `current` to it.
  mkdir -p "$PREFIX_DIR/releases"
  chmod 0755 "$PREFIX_DIR" "$PREFIX_DIR/releases"
  INCOMING=$PREFIX_DIR/releases/.incoming.$$
  rm -rf "$INCOMING"
  mkdir "$INCOMING"
  tar -xzf "$WORK/agent.tar.gz" -C "$INCOMING" || die "could not unpack the agent bundle"
  # tar run as root restores the modes stored in the archive: a bundle built under umask 077 would
  # leave the release readable by root alone, and the service user could not load its own code.
  chmod -R u+rwX,go+rX,go-w "$INCOMING"
  set -- "$INCOMING"/vantage-agent-*
  if [ $# -ne 1 ] || [ ! -f "$1/package.json" ] || [ ! -f "$1/node-agent.mjs" ]; then
    die "unexpected bundle layout"
  fi
  unpacked=$1
  VERSION=$(VI_PKG="$unpacked/package.json" "$NODE_BIN" -p 'require(process.env.VI_PKG).version')
  case $VERSION in ''|*[!0-9A-Za-z.+_-]*) die "bad version in the bundle: $VERSION" ;; esac
  bundle_abi=$(VI_PKG="$unpacked/package.json" "$NODE_BIN" -p 'require(process.env.VI_PKG).vantage.node_abi')
  local_abi=$("$NODE_BIN" -p process.versions.modules)
  if [ "$bundle_abi" != "$local_abi" ] || [ "${VANTAGE_FORCE_REBUILD:-0}" = 1 ]; then
    say "the bundle's native modules were built for Node ABI $bundle_abi; this Node.js is ABI $local_abi"
    rebuild_native "$unpacked"
  fi
  (cd "$unpacked" && "$NODE_BIN" -e 'require("better-sqlite3"); require("raw-socket")') \
    || die "the native modules do not load with this Node.js ($("$NODE_BIN" -v))"

  release=$PREFIX_DIR/releases/$VERSION
  PREVIOUS=$(readlink "$PREFIX_DIR/current" 2>/dev/null || true)
  [ -e "$release" ] && mv "$release" "$INCOMING/replaced"
  mv "$unpacked" "$release"
  ln -s "releases/$VERSION" "$PREFIX_DIR/.current.$$"
  if ! mv -T "$PREFIX_DIR/.current.$$" "$PREFIX_DIR/current" 2>/dev/null; then
    rm -f "$PREFIX_DIR/.current.$$"
    ln -sfn "releases/$VERSION" "$PREFIX_DIR/current"
  fi
  # Keep the new release and the one it replaced (for a manual rollback); drop older ones.
  prev_version=${PREVIOUS##*/}
  for dir in "$PREFIX_DIR"/releases/*; do
    [ -d "$dir" ] || continue
    case ${dir##*/} in "$VERSION"|"$prev_version") ;; *) rm -rf "$dir" ;; esac
  done
  if [ -n "$PREVIOUS" ] && [ "$prev_version" != "$VERSION" ]; then
    say "upgraded ${prev_version} -> $VERSION in $PREFIX_DIR"
  else
    say "installed $VERSION in $PREFIX_DIR"
  fi
}

# --- user, config, state ----------------------------------------------------------------------

read_meta() {
  # Reads what a previous run recorded in <prefix>/install.env (never sourced: parsed).
  META_USER=''; META_CREATED_USER=0; META_URL=''
  [ -f "$META_FILE" ] || return 0
  while IFS='=' read -r key value; do
    case $key in
      SERVICE_USER) META_USER=$value ;;
      CREATED_USER) META_CREATED_USER=$value ;;
      URL) META_URL=$value ;;
    esac
  done <"$META_FILE"
}

write_meta() {
  printf '%s\n' "# written by the Vantage installer; read by --uninstall" \
    "SERVICE_USER=$SERVICE_USER" "CREATED_USER=$CREATED_USER" "URL=$URL" "VERSION=$VERSION" >"$META_FILE"
}

nologin_shell() {
  for shell in /usr/sbin/nologin /sbin/nologin /bin/false; do
    [ -x "$shell" ] && { printf '%s\n' "$shell"; return 0; }
  done
  printf '%s\n' /bin/false
}

ensure_user() {
  CREATED_USER=$META_CREATED_USER
  [ -n "$RUN_USER" ] || RUN_USER=${META_USER:-$DEFAULT_USER}
  SERVICE_USER=$RUN_USER
  if ! id "$SERVICE_USER" >/dev/null 2>&1; then
    [ "$SERVICE_USER" = "$DEFAULT_USER" ] || die "user $SERVICE_USER does not exist"
    shell=$(nologin_shell)
    if have useradd; then
      useradd --system --user-group --no-create-home --home-dir /var/lib/vantage-agent \
        --shell "$shell" --comment 'Vantage probe agent' "$SERVICE_USER" || die "useradd failed"
    elif have adduser; then
      adduser -S -D -H -h /var/lib/vantage-agent -s "$shell" "$SERVICE_USER" || die "adduser failed"
    else
      die "no useradd or adduser to create the $SERVICE_USER user (or pass --user NAME)"
    fi
    CREATED_USER=1
    say "created system user $SERVICE_USER"
  fi
  SERVICE_GROUP=$(id -gn "$SERVICE_USER")
}

as_user() {
  # as_user CMD...: runs CMD as the service user (so files it creates in the state dir are its own).
  if [ "$(id -u "$SERVICE_USER")" = "$(id -u)" ]; then "$@"
  elif have runuser; then runuser -u "$SERVICE_USER" -- "$@"
  elif have setpriv; then setpriv --reuid="$SERVICE_USER" --regid="$SERVICE_GROUP" --init-groups -- "$@"
  else die "runuser or setpriv (util-linux) is needed to run the agent as $SERVICE_USER"
  fi
}

agent_cmd() {
  # agent_cmd SUBCOMMAND: the agent command line (node + bundle + subcommand + config).
  printf '%s' "$NODE_BIN $PREFIX_DIR/current/node-agent.mjs $1 --config $CONF_FILE"
}

node_id() {
  # Prints the enrolled node id (n_...) from `node-agent status --json`, or nothing.
  as_user "$NODE_BIN" "$PREFIX_DIR/current/node-agent.mjs" status --json --config "$CONF_FILE" 2>/dev/null \
    | sed -n 's/^ *"node_id": *"\(n_[0-9A-Za-z]*\)".*/\1/p' | head -n 1 || true
}

write_config() {
  # Writes /etc/vantage/agent.json (0600, service user): merges into an existing file so a
  # re-run keeps the operator's other settings; state_dir is where the node identity lives.
  # `write_config forget-token` removes the (spent) token instead of setting one.
  mkdir -p "$CONF_DIR" "$STATE_DIR"
  chmod 0755 "$CONF_DIR"
  chown "$SERVICE_USER:$SERVICE_GROUP" "$STATE_DIR"
  chmod 0700 "$STATE_DIR"
  tmp=$CONF_DIR/.agent.json.$$
  (umask 077 && VI_IN=$CONF_FILE VI_OUT=$tmp VI_URL=$URL VI_TOKEN=$TOKEN VI_STATE=$STATE_DIR VI_FORGET=${1:-} \
    VI_NAME=$NAME VI_ALLOW_PRIVATE=$ALLOW_PRIVATE VI_ALLOW_CIDRS=$ALLOW_CIDRS "$NODE_BIN" -e '
      const fs = require("fs"); const e = process.env; let c = {};
      try { c = JSON.parse(fs.readFileSync(e.VI_IN, "utf8")); } catch (err) {
        if (err.code !== "ENOENT") { console.error("vantage: error: " + e.VI_IN + " is not valid JSON: " + err.message); process.exit(1); }
      }
      c.control_plane_url = e.VI_URL;
      if (e.VI_TOKEN) c.token = e.VI_TOKEN;
      if (e.VI_FORGET === "forget-token") delete c.token;
      c.state_dir = e.VI_STATE;
      if (e.VI_NAME) c.name = e.VI_NAME;
      if (e.VI_ALLOW_PRIVATE === "1") c.allow_private = true;
      if (e.VI_ALLOW_CIDRS) c.allow_cidrs = e.VI_ALLOW_CIDRS.split(",").filter(Boolean);
      fs.writeFileSync(e.VI_OUT, JSON.stringify(c, null, 2) + "\n", { mode: 0o600 });
    ') || { rm -f "$tmp"; die "could not write $CONF_FILE"; }
  chown "$SERVICE_USER:$SERVICE_GROUP" "$tmp"
  chmod 0600 "$tmp"
  mv -f "$tmp" "$CONF_FILE"
}

# --- service ----------------------------------------------------------------------------------

write_unit() {
  mkdir -p "${UNIT_FILE%/*}"
  cat >"$UNIT_FILE" <<UNIT
# Written by the Vantage installer; re-running it rewrites this file.
[Unit]
Description=Vantage probe node agent
Wants=network-online.target
After=network-online.target

[Service]
Type=simple
User=$SERVICE_USER
Group=$SERVICE_GROUP
ExecStart=$(agent_cmd run)
Restart=always
RestartSec=5
# Exit status 3: the control plane refused the node for good (used token, revoked node).
RestartPreventExitStatus=3
# Raw sockets for ICMP ping and traceroute, and nothing else: no root at run time.
AmbientCapabilities=CAP_NET_RAW
CapabilityBoundingSet=CAP_NET_RAW
NoNewPrivileges=yes
ProtectSystem=strict
ProtectHome=yes
PrivateTmp=yes
ReadWritePaths=$STATE_DIR
# The agent removes the spent enrollment token from its config once enrolled (--no-start installs).
ReadWritePaths=-$CONF_FILE
Environment=NODE_ENV=production

[Install]
WantedBy=multi-user.target
UNIT
  chmod 0644 "$UNIT_FILE"
}

have_systemd() { [ -d "$SYSTEMD_MARK" ] && have systemctl; }

start_service() {
  was_active=0
  systemctl is-active --quiet "$UNIT_NAME" 2>/dev/null && was_active=1
  systemctl daemon-reload || die "systemctl daemon-reload failed"
  if [ "$NO_START" -eq 1 ]; then
    say "not started (--no-start); start it with: systemctl enable --now $UNIT_NAME"
    [ -z "$TOKEN" ] || say "it enrolls when it starts, then removes the spent token from $CONF_FILE"
    return 0
  fi
  systemctl enable --now "$UNIT_NAME" >&2 || die "systemctl enable --now $UNIT_NAME failed"
  if [ "$was_active" -eq 1 ]; then
    systemctl restart "$UNIT_NAME" || die "systemctl restart $UNIT_NAME failed"
  fi
}

wait_enrolled() {
  # Polls `node-agent status` once a second, up to --wait seconds, then prints the node id and
  # removes the spent token from the config. A service that stopped for good fails at once.
  waited=0
  while :; do
    id=$(node_id)
    [ -n "$id" ] && break
    if systemctl is-failed --quiet "$UNIT_NAME" 2>/dev/null; then
      printf '\n' >&2
      show_agent_log
      die "the agent stopped before it enrolled (its log is above; a used or expired token is the usual cause)"
    fi
    if [ "$waited" -ge "$WAIT_S" ]; then
      printf '\n' >&2
      show_agent_log
      die "the node did not enroll within ${WAIT_S}s (the agent's log is above; an expired or used token is the usual cause)"
    fi
    printf '\r%s' "vantage: waiting for the node to enroll with $URL ... ${waited}s" >&2
    sleep 1
    waited=$((waited + 1))
  done
  [ "$waited" -gt 0 ] && printf '\n' >&2
  [ -z "$TOKEN" ] || write_config forget-token
  printf '%s\n' "Vantage node $id is enrolled and running (version $VERSION)."
}

show_agent_log() {
  # The service's last log lines, so a failed enrollment shows the agent's own reason.
  if have journalctl; then
    say "the agent's last log lines (journalctl -u $UNIT_NAME -n 30):"
    journalctl -u "$UNIT_NAME" -n 30 --no-pager >&2 2>&1 || true
  else
    say "no journalctl here: read the agent's log where your system keeps the output of $UNIT_NAME"
  fi
}

check_agent_runs() {
  # The service user must be able to run Node.js and read the release: a Node.js under /root (as
  # nvm installs it) or files only root can read would leave the service failing at every start.
  out=$(cd / && as_user "$NODE_BIN" "$PREFIX_DIR/current/node-agent.mjs" version 2>&1) \
    || die "the agent does not start as $SERVICE_USER (can that user read $NODE_BIN and $PREFIX_DIR?): $out"
}

run_foreground() {
  # No systemd: exec the agent as the service user, keeping only CAP_NET_RAW where setpriv can.
  rm -rf "$WORK" "$INCOMING"
  say "running the agent in the foreground as $SERVICE_USER (Ctrl-C stops it)"
  if [ "$(id -u "$SERVICE_USER")" != 0 ] && have setpriv; then
    exec setpriv --reuid="$SERVICE_USER" --regid="$SERVICE_GROUP" --init-groups \
      --inh-caps=+net_raw --ambient-caps=+net_raw -- \
      "$NODE_BIN" "$PREFIX_DIR/current/node-agent.mjs" run --config "$CONF_FILE"
  fi
  say "setpriv not found: running without CAP_NET_RAW (ping and traceroute will fail)"
  exec runuser -u "$SERVICE_USER" -- "$NODE_BIN" "$PREFIX_DIR/current/node-agent.mjs" run --config "$CONF_FILE"
}

run_command() {
  # The command run_foreground runs: the agent in the foreground as the service user, with
  # CAP_NET_RAW where setpriv can give it.
  if [ "$(id -u "$SERVICE_USER")" != 0 ] && have setpriv; then
    printf '%s' "setpriv --reuid=$SERVICE_USER --regid=$SERVICE_GROUP --init-groups --inh-caps=+net_raw --ambient-caps=+net_raw -- $(agent_cmd run)"
  else
    printf '%s' "runuser -u $SERVICE_USER -- $(agent_cmd run)"
  fi
}

no_systemd() {
  # Nothing would run the agent: say so, print the command that does, and fail (exit 3) unless
  # --no-start asked for an install only; --foreground runs it now instead.
  say "systemd is not running here (no /run/systemd/system): no service was installed."
  if [ "$NO_START" -eq 0 ] && [ "$FOREGROUND" -eq 1 ]; then run_foreground; fi
  say "the agent is installed but not running; run it (under your supervisor) as $SERVICE_USER with CAP_NET_RAW:"
  printf '%s\n' "  $(run_command)"
  [ -z "$TOKEN" ] || say "it enrolls on its first start, then removes the spent token from $CONF_FILE"
  [ "$NO_START" -eq 1 ] && return 0
  say "or re-run this installer with --foreground to run it now, or with --no-start to install only"
  exit 3
}

# --- uninstall ----------------------------------------------------------------------------------

uninstall() {
  confirm "remove the Vantage agent (service, $PREFIX_DIR, $CONF_FILE, $STATE_DIR)?" || die "cancelled"
  if have_systemd; then
    systemctl disable --now "$UNIT_NAME" >/dev/null 2>&1 || true
  fi
  if [ -f "$UNIT_FILE" ]; then
    rm -f "$UNIT_FILE"
    have_systemd && { systemctl daemon-reload || true; }
  fi
  if [ -f "$META_FILE" ] || [ -L "$PREFIX_DIR/current" ]; then
    rm -rf "$PREFIX_DIR"
  elif [ -d "$PREFIX_DIR" ]; then
    say "$PREFIX_DIR does not look like a Vantage install folder: left alone"
  fi
  rm -rf "$STATE_DIR"
  rm -f "$CONF_FILE"
  rmdir "$CONF_DIR" 2>/dev/null || true
  if [ "$META_CREATED_USER" = 1 ] && [ "$META_USER" = "$DEFAULT_USER" ] && id "$DEFAULT_USER" >/dev/null 2>&1; then
    if have userdel; then userdel "$DEFAULT_USER" || say "userdel $DEFAULT_USER failed"
    elif have deluser; then deluser "$DEFAULT_USER" || say "deluser $DEFAULT_USER failed"
    fi
  fi
  say "the Vantage agent was removed (remove the node from the control plane's node list too)"
}

ensure_browser() {
  # --with-browser: the distribution's Chromium (Debian and Ubuntu: chromium; Fedora and RHEL
  # with EPEL: chromium). Nothing is downloaded from elsewhere; the agent finds /usr/bin/chromium.
  if have chromium || have chromium-browser; then say "Chromium is installed"; return 0; fi
  if have apt-get; then
    DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >&2 || die "apt-get install chromium failed"
  elif have dnf; then
    dnf install -y chromium >&2 || die "dnf install chromium failed (on RHEL-like systems enable EPEL first)"
  else
    die "--with-browser: no apt-get or dnf here; install Chromium yourself and re-run without --with-browser"
  fi
  say "Chromium installed: this node can run browser checks"
}

# --- main ---------------------------------------------------------------------------------------

cleanup() {
  [ -n "${WORK:-}" ] && rm -rf "$WORK"
  [ -n "${INCOMING:-}" ] && rm -rf "$INCOMING"
  return 0
}

main() {
  umask 022
  parse_args "$@"
  set_paths
  read_meta
  [ -n "$URL" ] || URL=$META_URL
  validate_url
  require_root
  if [ "$UNINSTALL" -eq 1 ]; then
    uninstall
    return 0
  fi
  if [ ! -f "$CONF_FILE" ] && [ -z "$TOKEN" ]; then
    usage_error "an enrollment token is required for a first install: VANTAGE_TOKEN=ent_... in the environment or --token-file FILE (create one with POST /v1/enrollment-tokens)"
  fi
  WORK=''; INCOMING=''
  trap cleanup EXIT
  trap 'exit 130' HUP INT TERM
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/vantage-install.XXXXXX")
  ensure_node
  [ "$WITH_BROWSER" -eq 0 ] || ensure_browser
  download_bundle
  install_release
  ensure_user
  check_agent_runs
  write_config
  write_meta
  if have_systemd; then
    write_unit
    start_service
    [ "$NO_START" -eq 1 ] || wait_enrolled
  else
    no_systemd
  fi
}

main "$@"
