//go:build linux

package docker

import (
	"archive/tar"
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/moby/moby/client"
)

// copyAgent copies the agent binary into a created container, at AgentPath.
func (x *Executor) copyAgent(ctx context.Context, id string) error {
	pr, pw := io.Pipe()
	go func() {
		tw := tar.NewWriter(pw)
		err := func() error {
			f, err := os.Open(x.agent)
			if err != nil {
				return err
			}
			defer f.Close()
			fi, err := f.Stat()
			if err != nil {
				return err
			}
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: filepath.Dir(AgentPath)[1:] + "/", Mode: 0o755}); err != nil {
				return err
			}
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: AgentPath[1:], Mode: 0o755, Size: fi.Size()}); err != nil {
				return err
			}
			if _, err := io.Copy(tw, f); err != nil {
				return err
			}
			return tw.Close()
		}()
		pw.CloseWithError(err)
	}()
	_, err := x.cli.CopyToContainer(ctx, id, client.CopyToContainerOptions{DestinationPath: "/", Content: pr})
	pr.CloseWithError(err)
	return err
}

// copyDir copies the directory root here into the created container's root (its volume), with its
// files' modes and owners: directories, regular files, symbolic links, fifos and devices (sockets are
// left out).
func (x *Executor) copyDir(ctx context.Context, id, root string) error {
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return nil // nothing here to copy: the volume starts empty
	}
	pr, pw := io.Pipe()
	go func() {
		// The entries are named by their absolute paths (less the leading slash) and extracted at "/": the
		// engine refuses a symbolic link that leads out of the directory it extracts into, and a workspace
		// may hold one to its parent (up -> ..), as it may here.
		pw.CloseWithError(writeTree(pw, root))
	}()
	_, err := x.cli.CopyToContainer(ctx, id, client.CopyToContainerOptions{DestinationPath: "/", Content: pr, CopyUIDGID: true})
	pr.CloseWithError(err)
	return err
}

// writeTree writes the tree beneath root as a tar stream, each entry named by its absolute path without
// the leading slash.
func writeTree(w io.Writer, root string) error {
	tw := tar.NewWriter(w)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path == root {
			return nil
		}
		if d.Type()&fs.ModeSocket != 0 {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		link := ""
		if d.Type()&fs.ModeSymlink != 0 {
			if link, err = os.Readlink(path); err != nil {
				return err
			}
		}
		h, err := tar.FileInfoHeader(info, link)
		if err != nil {
			return err
		}
		h.Name = path[1:]
		if d.IsDir() {
			h.Name += "/"
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(tw, f)
		return err
	})
	if err != nil {
		return err
	}
	return tw.Close()
}
