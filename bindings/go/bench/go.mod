module github.com/libprealloc/libprealloc/bindings/go/bench

go 1.26.0

require (
	go.etcd.io/etcd/client/pkg/v3 v3.7.3
	github.com/libprealloc/libprealloc/bindings/go v0.0.0
)

require (
	go.uber.org/multierr v1.11.0 // indirect
	go.uber.org/zap v1.27.1 // indirect
	golang.org/x/sys v0.49.0 // indirect
)

replace github.com/libprealloc/libprealloc/bindings/go => ../
