// The repositories (one per aggregate: every query of its table), exported through @em/core/data.
export {};
