package devsync_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// A real Syncthing (Debian's package) between two devices on loopback:
// discovery, relays, NAT and usage reports off, static addresses, each
// its own home directory, started and stopped by the test. Folder
// changes are announced by a scan through the REST API, and the test
// waits for the other side's completion through its events, never a
// sleep.

// stFolder is the id of the Syncthing folder the devices share.
const stFolder = "engram"

// stNode is one running Syncthing.
type stNode struct {
	home, folder, id, gui, apiKey string
	listen                        int
	cmd                           *exec.Cmd
	lastEvent                     int
}

// syncthingBinary finds syncthing, or skips the test (fails it in CI,
// where .ci/deps installs it).
func syncthingBinary(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("syncthing")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI must have syncthing installed (.ci/deps test)")
		}
		t.Skip("syncthing is not installed (apt-get install syncthing)")
	}
	return bin
}

func freePort(t testing.TB) int {
	t.Helper()
	// A port is free once its listener closes, so the kernel may give it
	// out again at the next ask: one node's sync and API addresses came
	// out the same and its API could not listen. Ports handed out in
	// this process are never handed out again.
	portsMu.Lock()
	defer portsMu.Unlock()
	for {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if !portsGiven[port] {
			portsGiven[port] = true
			return port
		}
	}
}

var (
	portsMu    sync.Mutex
	portsGiven = map[int]bool{}
)

// newSTNode generates a home directory (keys) and the folder, without
// starting Syncthing.
func newSTNode(t testing.TB, bin string) *stNode {
	t.Helper()
	n := &stNode{home: t.TempDir(), folder: t.TempDir(), apiKey: "engram-test-key-" + fmt.Sprint(freePort(t)), listen: freePort(t)}
	n.gui = fmt.Sprintf("127.0.0.1:%d", freePort(t))
	if out, err := exec.Command(bin, "generate", "--home="+n.home, "--no-default-folder", "--skip-port-probing").CombinedOutput(); err != nil {
		t.Fatalf("syncthing generate: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "serve", "--home="+n.home, "--device-id").Output()
	if err != nil {
		t.Fatalf("syncthing --device-id: %v", err)
	}
	n.id = strings.TrimSpace(string(out))
	if err := os.Mkdir(filepath.Join(n.folder, ".stfolder"), 0o700); err != nil {
		t.Fatal(err)
	}
	// Engram's own temporary names never travel.
	if err := os.WriteFile(filepath.Join(n.folder, ".stignore"), []byte("(?d).tmp-*\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return n
}

// configure writes n's config.xml: the shared folder with both devices,
// each at its static loopback address, everything that reaches outside
// off.
func (n *stNode) configure(t testing.TB, peer *stNode) {
	t.Helper()
	dev := func(d *stNode) string {
		return fmt.Sprintf(`<device id="%s" name="%s" compression="metadata" introducer="false"><address>tcp://127.0.0.1:%d</address><paused>false</paused></device>`, d.id, d.id[:7], d.listen)
	}
	cfg := fmt.Sprintf(`<configuration version="36">
<folder id="%s" label="engram" path="%s" type="sendreceive" rescanIntervalS="3600" fsWatcherEnabled="false" fsWatcherDelayS="10" ignorePerms="false" autoNormalize="true">
 <filesystemType>basic</filesystemType>
 <device id="%s"></device><device id="%s"></device>
 <minDiskFree unit="%%">0</minDiskFree>
 <versioning></versioning>
 <markerName>.stfolder</markerName>
</folder>
%s
%s
<gui enabled="true" tls="false"><address>%s</address><apikey>%s</apikey></gui>
<options>
 <listenAddress>tcp://127.0.0.1:%d</listenAddress>
 <globalAnnounceEnabled>false</globalAnnounceEnabled>
 <localAnnounceEnabled>false</localAnnounceEnabled>
 <relaysEnabled>false</relaysEnabled>
 <natEnabled>false</natEnabled>
 <urAccepted>-1</urAccepted>
 <autoUpgradeIntervalH>0</autoUpgradeIntervalH>
 <crashReportingEnabled>false</crashReportingEnabled>
 <startBrowser>false</startBrowser>
 <stunServer></stunServer>
 <minHomeDiskFree unit="%%">0</minHomeDiskFree>
 <reconnectionIntervalS>1</reconnectionIntervalS>
</options>
</configuration>
`, stFolder, n.folder, n.id, peer.id, dev(n), dev(peer), n.gui, n.apiKey, n.listen)
	if err := os.WriteFile(filepath.Join(n.home, "config.xml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

// start runs Syncthing and returns once its REST API listens (it says
// so on its output).
func (n *stNode) start(t testing.TB, bin string) {
	t.Helper()
	n.cmd = exec.Command(bin, "serve", "--home="+n.home, "--no-browser", "--no-restart", "--no-upgrade", "--logflags=0")
	n.cmd.Env = append(os.Environ(), "STNORESTART=1", "STNOUPGRADE=1", "STNODEFAULTFOLDER=1", "HOME="+n.home)
	out, err := n.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	n.cmd.Stderr = n.cmd.Stdout
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		n.cmd.Process.Kill()
		n.cmd.Wait()
	})
	sc := bufio.NewScanner(out)
	var log []string
	for sc.Scan() {
		log = append(log, sc.Text())
		if strings.Contains(sc.Text(), "GUI and API listening on") {
			go io.Copy(io.Discard, out) // keep its output flowing
			return
		}
	}
	t.Fatalf("syncthing exited before its API listened:\n%s", strings.Join(log, "\n"))
}

// api calls Syncthing's REST API and decodes its answer into v.
func (n *stNode) api(t testing.TB, method, path string, q url.Values, v any) {
	t.Helper()
	u := "http://" + n.gui + path
	if q != nil {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Key", n.apiKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("syncthing %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("syncthing %s %s: %s: %s", method, path, resp.Status, body)
	}
	if v != nil {
		if err := json.Unmarshal(body, v); err != nil {
			t.Fatalf("syncthing %s %s: %v: %s", method, path, err, body)
		}
	}
}

// waitEvent blocks until Syncthing reports one of types (or its long
// poll's timeout passes with none), and returns.
func (n *stNode) waitEvent(t testing.TB, types string) { n.waitEventFor(t, types, 5) }

func (n *stNode) waitEventFor(t testing.TB, types string, seconds int) {
	t.Helper()
	var evs []struct {
		ID int `json:"id"`
	}
	n.api(t, "GET", "/rest/events", url.Values{"since": {fmt.Sprint(n.lastEvent)}, "events": {types}, "timeout": {fmt.Sprint(seconds)}}, &evs)
	for _, e := range evs {
		n.lastEvent = max(n.lastEvent, e.ID)
	}
}

// until repeats check, waiting for Syncthing's events of types between
// tries, for at most a minute.
func (n *stNode) until(t testing.TB, what, types string, check func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		ok, state := check()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("syncthing: %s: not after a minute (%s)", what, state)
		}
		n.waitEvent(t, types)
	}
}

func (n *stNode) connected(t testing.TB, peer *stNode) {
	t.Helper()
	n.until(t, "connected to "+peer.id[:7], "DeviceConnected,DeviceDisconnected", func() (bool, string) {
		var c struct {
			Connections map[string]struct {
				Connected bool `json:"connected"`
			} `json:"connections"`
		}
		n.api(t, "GET", "/rest/system/connections", nil, &c)
		return c.Connections[peer.id].Connected, fmt.Sprintf("%+v", c.Connections[peer.id])
	})
}

// scan has Syncthing look at the folder now (the call returns when the
// scan is done).
func (n *stNode) scan(t testing.TB) {
	t.Helper()
	n.api(t, "POST", "/rest/db/scan", url.Values{"folder": {stFolder}}, nil)
}

// engramFiles sums the files of the folder that Engram reads (vault.json
// and the segments), by path, as a Syncthing device holds them.
func engramFiles(t testing.TB, folder string) map[string]string {
	t.Helper()
	out := map[string]string{}
	root := filepath.Join(folder, "engram")
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[rel] = fmt.Sprintf("%x", sha256.Sum256(raw))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// missing lists what of want has lacks (or holds otherwise).
func missing(want, has map[string]string) []string {
	var out []string
	for p, h := range want {
		if has[p] != h {
			out = append(out, p)
		}
	}
	return out
}
func (n *stNode) pause(t testing.TB, peer *stNode) {
	n.api(t, "POST", "/rest/system/pause", url.Values{"device": {peer.id}}, nil)
}

func (n *stNode) resume(t testing.TB, peer *stNode) {
	n.api(t, "POST", "/rest/system/resume", url.Values{"device": {peer.id}}, nil)
}

// syncthingPair is a transport: two Syncthing instances sharing one
// folder, each device writing its own copy.
type syncthingPair struct {
	a, b *stNode
	cut  bool
}

func newSyncthingPair(t testing.TB) *syncthingPair {
	t.Helper()
	bin := syncthingBinary(t)
	a, b := newSTNode(t, bin), newSTNode(t, bin)
	a.configure(t, b)
	b.configure(t, a)
	a.start(t, bin)
	b.start(t, bin)
	a.connected(t, b)
	b.connected(t, a)
	// Syncthing keeps events for a filter from the first request that
	// names it: ask once now, so that settle misses none.
	a.waitEventFor(t, settleEvents, 1)
	b.waitEventFor(t, settleEvents, 1)
	return &syncthingPair{a: a, b: b}
}

func (p *syncthingPair) folders() (string, string) { return p.a.folder, p.b.folder }

// settleEvents are the Syncthing events after which settle looks again.
const settleEvents = "ItemFinished,LocalIndexUpdated,RemoteIndexUpdated,FolderCompletion,StateChanged,DeviceConnected"

// settle scans both folders, then waits until each device holds every
// file the other has, byte for byte, between Syncthing's events;
// nothing while the network is cut.
func (p *syncthingPair) settle(t testing.TB) {
	t.Helper()
	if p.cut {
		return
	}
	p.a.scan(t)
	p.b.scan(t)
	deadline := time.Now().Add(time.Minute)
	for {
		fa, fb := engramFiles(t, p.a.folder), engramFiles(t, p.b.folder)
		toB, toA := missing(fa, fb), missing(fb, fa)
		switch {
		case len(toB) == 0 && len(toA) == 0:
			return
		case time.Now().After(deadline):
			t.Fatalf("syncthing: not in step after a minute: B lacks %v, A lacks %v", toB, toA)
		case len(toB) > 0:
			p.b.waitEvent(t, settleEvents)
		default:
			p.a.waitEvent(t, settleEvents)
		}
	}
}

func (p *syncthingPair) cutNetwork(t testing.TB) {
	p.a.pause(t, p.b)
	p.b.pause(t, p.a)
	p.cut = true
}

func (p *syncthingPair) heal(t testing.TB) {
	p.a.resume(t, p.b)
	p.b.resume(t, p.a)
	p.cut = false
	p.a.connected(t, p.b)
	p.b.connected(t, p.a)
	p.settle(t)
}

// TestTwoDevicesSyncthing runs TestTwoDevices's suite over two real
// Syncthing instances; the cut pauses them towards each other.
func TestTwoDevicesSyncthing(t *testing.T) { twoDevices(t, newSyncthingPair(t)) }

// TestRefusedSegmentsSyncthing runs TestRefusedSegments's suite over
// Syncthing: the bad segment is written into A's copy of the folder.
func TestRefusedSegmentsSyncthing(t *testing.T) {
	refusedSegments(t, func(t *testing.T) transport { return newSyncthingPair(t) })
}
