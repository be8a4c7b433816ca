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
// files' modes and owners.
func (x *Executor) copyDir(ctx context.Context, id, root string) error {
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return nil // nothing here to copy: the volume starts empty
	}
	pr, pw := io.Pipe()
	go func() {
		tw := tar.NewWriter(pw)
		err := tw.AddFS(dirFS{os.DirFS(root), root})
		if err == nil {
			err = tw.Close()
		}
		pw.CloseWithError(err)
	}()
	_, err := x.cli.CopyToContainer(ctx, id, client.CopyToContainerOptions{DestinationPath: root, Content: pr, CopyUIDGID: true})
	pr.CloseWithError(err)
	return err
}

// dirFS is os.DirFS with its symbolic links read as links (tar.Writer.AddFS writes them as links when
// the file system can read them: fs.ReadLinkFS).
type dirFS struct {
	fs.FS
	root string
}

func (d dirFS) ReadLink(name string) (string, error) {
	return os.Readlink(filepath.Join(d.root, filepath.FromSlash(name)))
}

func (d dirFS) Lstat(name string) (fs.FileInfo, error) {
	return os.Lstat(filepath.Join(d.root, filepath.FromSlash(name)))
}
