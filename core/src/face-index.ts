// @em/core/face-index: the in-memory face index of an event's faces (usearch), for the services that match faces.
export * from './faces/face-index-cache';
