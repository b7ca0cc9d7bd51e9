// Command etcd is etcd's own server, etcdmain.Main, unchanged: built by
// examples/etcd/build.sh either from the module as published (stock) or
// with its WAL segments made by libprealloc (wal-segment.patch, build tag
// libprealloc).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
