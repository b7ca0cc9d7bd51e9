module github.com/libprealloc/libprealloc/bindings/go

go 1.22
