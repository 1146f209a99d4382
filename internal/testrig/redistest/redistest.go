// Package redistest starts a Redis Cluster of Debian's redis-server on
// loopback ports for tests: masters and replicas, each a process of its
// own with its data in the test's temporary directory, joined with
// redis-cli --cluster create. A test skips with a message where
// redis-server is not installed, unless DOPPEL_REQUIRE_REDIS is set (CI
// sets it), when it fails instead.
package redistest

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// A Cluster is a running Redis Cluster on 127.0.0.1.
type Cluster struct {
	t     testing.TB
	nodes []*node
}

// node is one redis-server process.
type node struct {
	addr string
	dir  string
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
}

// Start starts a cluster of masters masters, each with replicas replicas
// (masters ≥ 3, as Redis Cluster requires), and waits until every node
// reports the cluster ok. The processes are killed when the test ends.
func Start(t testing.TB, masters, replicas int) *Cluster {
	t.Helper()
	server, err := exec.LookPath("redis-server")
	if err != nil {
		skip(t, "redis-server (Debian's redis-server package) is not installed: the Redis Cluster tests are skipped")
	}
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		skip(t, "redis-cli (Debian's redis-tools package) is not installed: the Redis Cluster tests are skipped")
	}
	c := &Cluster{t: t}
	t.Cleanup(c.stop)
	// redis-cli --cluster create waits for the nodes to agree and, when
	// one of them never hears of the others (a busy machine, a bus port
	// taken meanwhile), waits forever: it is given two minutes, and the
	// cluster is made again on other ports, three times at most.
	for attempt := 1; ; attempt++ {
		out, err := c.create(server, cli, masters*(1+replicas), replicas)
		if err == nil {
			break
		}
		if attempt == 3 {
			t.Fatalf("redis-cli --cluster create: %v\n%s\n%s", err, out, c.logs())
		}
		t.Logf("redistest: redis-cli --cluster create: %v; making the cluster again", err)
		c.stop()
		c.nodes = nil
	}
	c.WaitOK(30 * time.Second)
	deadline := time.Now().Add(30 * time.Second)
	for len(c.Masters()) != masters || strings.Count(c.clusterNodes(), "slave") != masters*replicas || !c.replicasUp() {
		if time.Now().After(deadline) {
			t.Fatalf("redistest: the cluster has not settled:\n%s", c.clusterNodes())
		}
		time.Sleep(100 * time.Millisecond)
	}
	return c
}

// create starts n nodes and joins them into a cluster with replicas
// replicas a master, within two minutes.
func (c *Cluster) create(server, cli string, n, replicas int) ([]byte, error) {
	for i := range n {
		c.nodes = append(c.nodes, c.startNode(server, i))
	}
	args := []string{"--cluster", "create"}
	for _, nd := range c.nodes {
		args = append(args, nd.addr)
	}
	args = append(args, "--cluster-replicas", strconv.Itoa(replicas), "--cluster-yes")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, cli, args...).CombinedOutput()
	if ctx.Err() != nil {
		err = fmt.Errorf("not done in 2 minutes: %w", ctx.Err())
	}
	return out, err
}

func skip(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("DOPPEL_REQUIRE_REDIS") != "" {
		t.Fatal(msg + " (DOPPEL_REQUIRE_REDIS is set)")
	}
	t.Skip(msg)
}

// startNode starts node i on a free port whose cluster bus port (port +
// 10000) is free too.
func (c *Cluster) startNode(server string, i int) *node {
	c.t.Helper()
	dir := filepath.Join(c.t.TempDir(), fmt.Sprintf("node%d", i))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		c.t.Fatal(err)
	}
	for attempt := 0; ; attempt++ {
		port := freePort(c.t)
		nd := &node{addr: fmt.Sprintf("127.0.0.1:%d", port), dir: dir, done: make(chan struct{})}
		nd.cmd = exec.Command(server, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
			"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000",
			"--cluster-replica-validity-factor", "0",
			"--dir", dir, "--save", "", "--appendonly", "yes", "--appendfsync", "no", "--protected-mode", "no",
			"--logfile", filepath.Join(dir, "redis.log"))
		if err := nd.cmd.Start(); err != nil {
			c.t.Fatalf("redis-server: %v", err)
		}
		go func() { nd.cmd.Wait(); close(nd.done) }()
		if nd.waitPing(5 * time.Second) {
			return nd
		}
		nd.kill()
		if attempt == 4 {
			log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
			c.t.Fatalf("redis-server on %s did not answer:\n%s", nd.addr, log)
		}
		os.Remove(filepath.Join(dir, "nodes.conf"))
	}
}

// freePort returns a loopback port that was free, with its bus port
// (+10000) free as well.
func freePort(t testing.TB) int {
	for {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if port+10000 > 65535 {
			continue
		}
		if b, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port+10000)); err == nil {
			b.Close()
			return port
		}
	}
}

// waitPing reports whether the node answers PING within d.
func (nd *node) waitPing(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		select {
		case <-nd.done:
			return false
		default:
		}
		conn, err := net.DialTimeout("tcp", nd.addr, 200*time.Millisecond)
		if err == nil {
			conn.SetDeadline(time.Now().Add(time.Second))
			fmt.Fprint(conn, "PING\r\n")
			line, _ := bufio.NewReader(conn).ReadString('\n')
			conn.Close()
			if strings.HasPrefix(line, "+PONG") {
				return true
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

func (nd *node) kill() {
	if nd.cmd.Process != nil {
		nd.cmd.Process.Signal(syscall.SIGKILL)
		<-nd.done
	}
}

func (c *Cluster) stop() {
	for _, nd := range c.nodes {
		nd.kill()
	}
}

// logs returns the end of every node's log.
func (c *Cluster) logs() string {
	var b strings.Builder
	for _, nd := range c.nodes {
		log, _ := os.ReadFile(filepath.Join(nd.dir, "redis.log"))
		fmt.Fprintf(&b, "== %s\n", nd.addr)
		for _, line := range strings.Split(string(log), "\n") {
			if strings.Contains(line, "#") || strings.Contains(line, "lection") || strings.Contains(line, "ailover") {
				fmt.Fprintln(&b, line)
			}
		}
	}
	return b.String()
}

// Addrs returns every node's address, masters and replicas: the seed
// addresses a client is given.
func (c *Cluster) Addrs() []string {
	out := make([]string, len(c.nodes))
	for i, nd := range c.nodes {
		out[i] = nd.addr
	}
	return out
}

// Client returns a cluster client of the cluster, closed when the test
// ends. It reloads the cluster's layout every second (go-redis's default
// is a minute: until then requests for a failed master's slots fail).
func (c *Cluster) Client() *redis.ClusterClient {
	cl := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs(), ClusterStateReloadInterval: time.Second})
	c.t.Cleanup(func() { cl.Close() })
	return cl
}

// Masters returns the addresses of the nodes that are masters serving
// slots now, as the first live node sees them.
func (c *Cluster) Masters() []string {
	c.t.Helper()
	var out []string
	for _, line := range strings.Split(c.clusterNodes(), "\n") {
		f := strings.Fields(line)
		if len(f) > 8 && strings.Contains(f[2], "master") && !strings.Contains(f[2], "fail") {
			out = append(out, strings.Split(f[1], "@")[0])
		}
	}
	return out
}

// clusterNodes returns CLUSTER NODES as a live node answers it.
func (c *Cluster) clusterNodes() string {
	c.t.Helper()
	for _, nd := range c.nodes {
		select {
		case <-nd.done:
			continue
		default:
		}
		cl := redis.NewClient(&redis.Options{Addr: nd.addr})
		s, err := cl.ClusterNodes(context.Background()).Result()
		cl.Close()
		if err == nil {
			return s
		}
	}
	c.t.Fatal("redistest: no node answers")
	return ""
}

// KillMaster kills (SIGKILL) the master node at addr, once its replicas
// have every write it had taken when KillMaster was called, and waits
// until a replica has taken over its slots and the cluster is ok again.
// (Replication is asynchronous: a write a master acknowledged and had not
// yet sent is lost with it, which a loaded machine made likely.)
func (c *Cluster) KillMaster(addr string) {
	c.t.Helper()
	for _, nd := range c.nodes {
		if nd.addr == addr {
			want := len(c.Masters())
			c.replicated(addr, 10*time.Second)
			nd.kill()
			deadline := time.Now().Add(30 * time.Second)
			for {
				if m := c.Masters(); !slices.Contains(m, addr) && len(m) == want && c.ok() {
					return
				}
				if time.Now().After(deadline) {
					c.t.Fatalf("redistest: no replica took over from %s within 30 s:\n%s\n%s", addr, c.clusterNodes(), c.logs())
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
	}
	c.t.Fatalf("redistest: no node %s", addr)
}

// replicated waits, at most d, until the replicas of the master at addr
// have reached the replication offset it had when called.
func (c *Cluster) replicated(addr string, d time.Duration) {
	cl := redis.NewClient(&redis.Options{Addr: addr})
	defer cl.Close()
	ctx := context.Background()
	target := int64(-1)
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		info, err := cl.Info(ctx, "replication").Result()
		if err != nil {
			continue
		}
		offset, replicas := replication(info)
		if target < 0 {
			target = offset
		}
		if len(replicas) > 0 && slices.Min(replicas) >= target {
			return
		}
	}
	c.t.Logf("redistest: the replicas of %s did not reach its replication offset within %v", addr, d)
}

// replication returns a master's replication offset and its replicas'
// from its INFO replication: master_repl_offset:N and slaveK:…,offset=N,….
func replication(info string) (offset int64, replicas []int64) {
	for line := range strings.Lines(info) {
		line = strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(line, "master_repl_offset:"); ok {
			offset, _ = strconv.ParseInt(v, 10, 64)
		}
		if !strings.HasPrefix(line, "slave") || !strings.Contains(line, "offset=") {
			continue
		}
		for field := range strings.SplitSeq(line[strings.Index(line, ":")+1:], ",") {
			if v, ok := strings.CutPrefix(field, "offset="); ok {
				n, _ := strconv.ParseInt(v, 10, 64)
				replicas = append(replicas, n)
			}
		}
	}
	return offset, replicas
}

// WaitOK waits until every live node reports cluster_state:ok and the
// live masters cover every slot, failing the test after d.
func (c *Cluster) WaitOK(d time.Duration) {
	c.t.Helper()
	deadline := time.Now().Add(d)
	for {
		if c.ok() {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("redistest: the cluster is not ok after %v:\n%s", d, c.clusterNodes())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// replicasUp reports whether every replica has its link to its master up
// (its first synchronization done).
func (c *Cluster) replicasUp() bool {
	for _, nd := range c.nodes {
		cl := redis.NewClient(&redis.Options{Addr: nd.addr})
		info, err := cl.Info(context.Background(), "replication").Result()
		cl.Close()
		if err != nil || strings.Contains(info, "role:slave") && !strings.Contains(info, "master_link_status:up") {
			return false
		}
	}
	return true
}

// ok reports whether every live node says the cluster is ok.
func (c *Cluster) ok() bool {
	live := 0
	for _, nd := range c.nodes {
		select {
		case <-nd.done:
			continue
		default:
		}
		live++
		cl := redis.NewClient(&redis.Options{Addr: nd.addr})
		info, err := cl.ClusterInfo(context.Background()).Result()
		cl.Close()
		if err != nil || !strings.Contains(info, "cluster_state:ok") {
			return false
		}
	}
	return live > 0
}

// KeysPerMaster returns the keys matching pattern (KEYS syntax) on each
// master of rdb's cluster, by the master's address: where a store's keys
// landed.
func KeysPerMaster(t testing.TB, rdb *redis.ClusterClient, pattern string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	var mu sync.Mutex
	err := rdb.ForEachMaster(context.Background(), func(ctx context.Context, m *redis.Client) error {
		keys, err := m.Keys(ctx, pattern).Result()
		mu.Lock()
		out[m.Options().Addr] = keys
		mu.Unlock()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
