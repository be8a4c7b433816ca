// Package docs holds the agentbash documentation; its test keeps the examples true.
package docs
