// Command etcd-load puts keys into etcd with clientv3 and keeps a log of
// every acknowledged put (key and revision), then checks that each one is
// readable, for the crash tests and the benchmark of examples/etcd.
//
//	etcd-load put -endpoint URL -log FILE [-tag T] [-clients N] [-count N] [-value-size B]
//	              [-wal-dir DIR -kill-pid PID (-kill-after-puts N | -kill-after-cut K)]
//	etcd-load check -endpoint URL -log FILE [-value-size B] [-clear TAG]
//	etcd-load wait -endpoint URL [-timeout D]
//
// wait returns once the server answers a linearizable read.
// put prints one JSON line: puts, seconds, puts per second, put latency
// p50/p99 and the WAL segments seen.  With -kill-pid it sends SIGKILL to
// the server after the N-th acknowledged put, or after the K-th new WAL
// segment appeared in DIR and one more put was acknowledged in it; the puts
// refused after that end the run without an error.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.uber.org/zap"

	clientv3 "go.etcd.io/etcd/client/v3"
)

const keyPrefix = "k/"

func main() {
	if len(os.Args) < 2 {
		fail(errors.New("usage: etcd-load put|check|wait -endpoint URL ..."))
	}
	var err error
	switch os.Args[1] {
	case "put":
		err = put(os.Args[2:])
	case "check":
		err = check(os.Args[2:])
	case "wait":
		err = wait(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "etcd-load:", err)
	os.Exit(1)
}

func connect(endpoint string) (*clientv3.Client, error) {
	return clientv3.New(clientv3.Config{
		Endpoints:   []string{endpoint},
		DialTimeout: 10 * time.Second,
		Logger:      zap.NewNop(), // its retries are expected here
	})
}

// value is the key's value: size bytes drawn from a generator seeded by
// the key, so check needs nothing but the key to know it.
func value(key string, size int) string {
	h := fnv.New64a()
	h.Write([]byte(key))
	r := rand.New(rand.NewPCG(h.Sum64(), uint64(size)))
	b := make([]byte, size)
	for i := range b {
		b[i] = 'a' + byte(r.IntN(26))
	}
	return string(b)
}

// killer sends SIGKILL to the server once its condition is met.
type killer struct {
	pid, afterPuts, afterCut int
	walDir                   string
	segments0                int  // segments when the run began
	armed                    bool // the K-th new segment seen: kill at the next ack
	done                     bool
	cancel                   context.CancelFunc
}

func countSegments(dir string) (int, error) {
	ents, err := os.ReadDir(dir)
	n := 0
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".wal") {
			n++
		}
	}
	return n, err
}

// acked is called under the log's lock after each acknowledged put.
func (k *killer) acked(puts int) error {
	if k.pid == 0 || k.done {
		return nil
	}
	if k.afterCut > 0 && !k.armed {
		n, err := countSegments(k.walDir)
		if err != nil {
			return err
		}
		k.armed = n-k.segments0 >= k.afterCut
		return nil
	}
	if k.afterCut == 0 && puts < k.afterPuts {
		return nil
	}
	k.done = true
	k.cancel()
	return syscall.Kill(k.pid, syscall.SIGKILL)
}

type run struct {
	mu   sync.Mutex
	log  *os.File
	puts int
	lat  []time.Duration
	kill killer
}

func (r *run) record(key string, rev int64, d time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.kill.done {
		return nil // acknowledged after the kill was sent: not counted
	}
	if _, err := fmt.Fprintf(r.log, "%s %d\n", key, rev); err != nil {
		return err
	}
	r.puts++
	r.lat = append(r.lat, d)
	return r.kill.acked(r.puts)
}

func (r *run) client(ctx context.Context, cli *clientv3.Client, tag string, id, count, size int) error {
	for i := range count {
		key := fmt.Sprintf("%s%s/%02d/%08d", keyPrefix, tag, id, i)
		t0 := time.Now()
		resp, err := cli.Put(ctx, key, value(key, size))
		if err != nil {
			if ctx.Err() != nil {
				return nil // the server was killed on purpose
			}
			return fmt.Errorf("put %s: %w", key, err)
		}
		if err := r.record(key, resp.Header.Revision, time.Since(t0)); err != nil {
			return err
		}
	}
	return nil
}

func quantile(d []time.Duration, q float64) float64 {
	if len(d) == 0 {
		return 0
	}
	return float64(d[int(q*float64(len(d)-1))].Microseconds()) / 1000
}

func put(args []string) error {
	fs := flag.NewFlagSet("put", flag.ExitOnError)
	endpoint := fs.String("endpoint", "http://127.0.0.1:2379", "client URL")
	logPath := fs.String("log", "", "log of acknowledged puts (appended)")
	clients := fs.Int("clients", 1, "concurrent clients, each putting in sequence")
	count := fs.Int("count", 1000, "puts per client")
	size := fs.Int("value-size", 1024, "bytes per value")
	tag := fs.String("tag", "0", "names this run's keys (k/TAG/CLIENT/N)")
	r := &run{}
	fs.StringVar(&r.kill.walDir, "wal-dir", "", "the server's member/wal")
	fs.IntVar(&r.kill.pid, "kill-pid", 0, "server to SIGKILL")
	fs.IntVar(&r.kill.afterPuts, "kill-after-puts", 0, "kill after this many acknowledged puts")
	fs.IntVar(&r.kill.afterCut, "kill-after-cut", 0, "kill after the K-th new segment")
	fs.Parse(args)
	if *logPath == "" || *clients < 1 || *clients > 99 || *count < 1 || *size < 1 {
		return errors.New("put: -log, 1-99 -clients, -count and -value-size > 0 needed")
	}
	if r.kill.pid != 0 && (r.kill.walDir == "" || (r.kill.afterPuts > 0) == (r.kill.afterCut > 0)) {
		return errors.New("put: -kill-pid needs -wal-dir and one of -kill-after-puts, -kill-after-cut")
	}
	var err error
	if r.log, err = os.OpenFile(*logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644); err != nil {
		return err
	}
	defer r.log.Close()
	cli, err := connect(*endpoint)
	if err != nil {
		return err
	}
	defer cli.Close()
	var segments int
	if r.kill.walDir != "" {
		if segments, err = countSegments(r.kill.walDir); err != nil {
			return err
		}
	}
	r.kill.segments0 = segments
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r.kill.cancel = cancel

	errc := make(chan error, *clients)
	t0 := time.Now()
	for id := range *clients {
		go func() { errc <- r.client(ctx, cli, *tag, id, *count, *size) }()
	}
	for range *clients {
		if e := <-errc; e != nil && err == nil {
			err = e
			cancel()
		}
	}
	secs := time.Since(t0).Seconds()
	if err != nil {
		return err
	}
	if r.kill.walDir != "" {
		if n, err := countSegments(r.kill.walDir); err == nil {
			segments = n - segments
		}
	}
	slices.Sort(r.lat)
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"puts": r.puts, "seconds": secs, "puts_per_s": float64(r.puts) / secs,
		"p50_ms": quantile(r.lat, 0.50), "p99_ms": quantile(r.lat, 0.99),
		"new_segments": segments, "killed": r.kill.done,
	})
}

// check reads every key of the log back: its value must be the one put
// and its revision the acknowledged one (every key is put once).
func check(args []string) error {
	fs := flag.NewFlagSet("check", flag.ExitOnError)
	endpoint := fs.String("endpoint", "http://127.0.0.1:2379", "client URL")
	logPath := fs.String("log", "", "log written by put")
	size := fs.Int("value-size", 1024, "bytes per value, as put")
	clear := fs.String("clear", "", "then delete the keys of this tag and compact")
	fs.Parse(args)
	want, err := readLog(*logPath)
	if err != nil {
		return err
	}
	cli, err := connect(*endpoint)
	if err != nil {
		return err
	}
	defer cli.Close()
	found := 0
	for from := keyPrefix; ; {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		resp, err := cli.Get(ctx, from, clientv3.WithRange(clientv3.GetPrefixRangeEnd(keyPrefix)),
			clientv3.WithLimit(1000))
		cancel()
		if err != nil {
			return err
		}
		for _, kv := range resp.Kvs {
			key := string(kv.Key)
			rev, ok := want[key]
			if !ok {
				continue // put while the server died, never acknowledged
			}
			if kv.ModRevision != rev || string(kv.Value) != value(key, *size) {
				return fmt.Errorf("%s: revision %d, want %d, or its value differs", key, kv.ModRevision, rev)
			}
			found++
		}
		if !resp.More {
			break
		}
		from = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
	if found != len(want) {
		return fmt.Errorf("%d of %d acknowledged puts readable", found, len(want))
	}
	fmt.Printf("%d acknowledged puts readable\n", found)
	if *clear == "" {
		return nil
	}
	return clearTag(cli, *clear)
}

// clearTag deletes a run's keys and compacts them away, so that rounds of
// the crash test reuse the backend's pages instead of growing it.
func clearTag(cli *clientv3.Client, tag string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := cli.Delete(ctx, keyPrefix+tag+"/", clientv3.WithPrefix())
	if err != nil {
		return err
	}
	_, err = cli.Compact(ctx, resp.Header.Revision, clientv3.WithCompactPhysical())
	return err
}

func readLog(path string) (map[string]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	want := map[string]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, rev, ok := strings.Cut(sc.Text(), " ")
		n, err := strconv.ParseInt(rev, 10, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("%s: bad line %q", path, sc.Text())
		}
		want[key] = n
	}
	return want, sc.Err()
}

// wait retries a linearizable read until the server answers (it has a
// leader and has replayed its WAL) or the timeout passes.
func wait(args []string) error {
	fs := flag.NewFlagSet("wait", flag.ExitOnError)
	endpoint := fs.String("endpoint", "http://127.0.0.1:2379", "client URL")
	timeout := fs.Duration("timeout", time.Minute, "give up after this long")
	fs.Parse(args)
	cli, err := connect(*endpoint)
	if err != nil {
		return err
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	for {
		try, stop := context.WithTimeout(ctx, time.Second)
		_, err = cli.Get(try, "health")
		stop()
		if err == nil || ctx.Err() != nil {
			return err
		}
	}
}
