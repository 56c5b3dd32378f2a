// Package data loads training data: datasets, a parallel batch loader and
// the usual image transforms, in the shape of PyTorch's torch.utils.data
// and torchvision.
//
// It lives at the top of the module, beside torch and nn, rather than in
// nn: like torch.utils.data it depends on torch alone, and a program that
// only feeds tensors to its own code needs no modules to use it.
//
// # Datasets
//
// A Dataset is PyTorch's map-style dataset: Len and Get(i), where Get
// returns an Example, an input and a target. The datasets here are
//
//   - MNIST and Fashion-MNIST (LoadMNIST, LoadFashionMNIST), IDX files,
//     gzipped or raw; Fashion-MNIST defaults to Debian's
//     dataset-fashion-mnist package (FashionMNISTDir);
//   - CIFAR-10 in its binary format (LoadCIFAR10);
//   - ImageFolder: one folder per class, PNG and JPEG files;
//   - TensorDataset: examples that are rows of tensors already in memory;
//   - CharDataset: character-level language modelling over a text.
//
// Subset and RandomSplit take parts of a dataset, for example to hold out
// a validation set.
//
// Examples are decoded into Go values, not tensors: the image datasets give
// image.Image inputs and int class indices, CharDataset gives Array[int64]
// sequences. Decoding and augmenting in Go keeps libtorch out of the worker
// goroutines: a batch becomes a tensor once, when it is collated, with one
// copy. Examples may also hold tensors (TensorDataset's do); collation
// stacks them.
//
// # Transforms
//
// Transforms (Compose, RandomCrop, RandomHorizontalFlip, Resize, ToTensor,
// Normalize) work on Go values, before collation: the geometric ones on
// images (image.Image; RandomCrop and RandomHorizontalFlip also on CHW
// arrays), ToTensor turns an image into a CHW Array[float32] with values
// in [0, 1], and Normalize works on that array (or on a CHW float tensor,
// for datasets of tensors). They never modify their input.
//
// The loader applies them (Options.Transform), in its workers, with a
// random generator seeded from the loader's seed, the epoch and the
// example's index. Augmentation is thus reproducible for a seed whatever
// the number of workers and however they are scheduled, and differs from
// epoch to epoch.
//
// # Loading
//
// A Loader batches a dataset: batch size, seeded shuffling (a new
// permutation each epoch, the same ones for the same seed), drop-last,
// and workers that decode, transform and collate whole batches in
// parallel, at most Options.Prefetch batches ahead of the consumer, which
// receives them in order.
//
//	loader, err := data.NewLoader(train, data.Options{
//		BatchSize: 64, Shuffle: true, Seed: 1, Workers: 4,
//		Transform: data.Compose(data.ToTensor(), data.Normalize([]float32{0.2860}, []float32{0.3530})),
//	})
//	...
//	for epoch := 0; epoch < 10; epoch++ {
//		for loader.ScanContext(ctx) {
//			x, y := loader.Batch()
//			...
//		}
//		if err := loader.Err(); err != nil {
//			return err
//		}
//	}
//
// Scan marks the step boundaries of GoTorch's tensor memory: it calls
// torch.GC before each batch, so the tensors of the previous step are
// freed once nothing references them, and torch.FinishGC when the epoch
// ends (see torch.GC). Options.NoGC turns that off, and All iterates
// without it:
//
//	for b, err := range loader.All(ctx) {
//		if err != nil {
//			return err
//		}
//		... b.Input, b.Target ...
//	}
//
// # Errors
//
// A missing, corrupt, truncated or mismatched file gives an error that
// names the file and what is wrong with it (a *FileError); nothing in the
// package panics on bad input. An error while loading a batch, including a
// panic in a dataset or transform, stops the epoch, and Err (or All)
// returns it with the index of the example.
package data
