import { Account, ApiKey, LocalCredential, Membership, Organisation } from './organisation';
import { Event } from './event';
import { Face, Photo, PhotoBib } from './photo';
import { FaceSearch } from './search';
import { Clip, ClipRequest, Video, VideoFace } from './video';

export * from './organisation';
export * from './event';
export * from './photo';
export * from './search';
export * from './video';

export const ENTITIES = [
  Organisation,
  Account,
  LocalCredential,
  Membership,
  ApiKey,
  Event,
  Photo,
  PhotoBib,
  Face,
  FaceSearch,
  Video,
  VideoFace,
  ClipRequest,
  Clip,
];
