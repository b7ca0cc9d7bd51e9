module libprealloc/prealloc

go 1.22
