"""Token-masking kernels for torch, numpy and mlx (`kernels.torch`, `kernels.numpy`,
`kernels.mlx`), as outlines-core's: each imports its array library only when it is imported."""
