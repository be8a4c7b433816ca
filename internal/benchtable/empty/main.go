// Command empty does nothing: the start-up baseline of `make bench`.
package main

func main() {}
