import {
  GraphQLFieldConfig,
  GraphQLInt,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  GraphQLBoolean,
  GraphQLFloat,
} from 'graphql';

const ClipStatusType = new GraphQLObjectType({
  name: 'ClipStatus',
  description: 'One transition of a video clipping request.',
  fields: {
    requestId: { type: new GraphQLNonNull(GraphQLString) },
    eventId: { type: new GraphQLNonNull(GraphQLInt) },
    status: {
      type: new GraphQLNonNull(GraphQLString),
      description: 'processing, completed, no_matches, no_segments, clip_failed or failed.',
    },
    error: { type: GraphQLString },
    at: { type: new GraphQLNonNull(GraphQLString), description: 'ISO time of the transition.' },
  },
});

const PhotoStatusType = new GraphQLObjectType({
  name: 'PhotoStatus',
  description: 'One transition of a photo in the pipeline.',
  fields: {
    eventId: { type: new GraphQLNonNull(GraphQLInt) },
    photoId: { type: new GraphQLNonNull(GraphQLString) },
    status: { type: new GraphQLNonNull(GraphQLString), description: 'queued, processing, processed or failed.' },
    reason: { type: GraphQLString, description: 'Why it failed.' },
    at: { type: new GraphQLNonNull(GraphQLString), description: 'ISO time of the transition.' },
  },
});

const VideoStatusType = new GraphQLObjectType({
  name: 'VideoStatus',
  description: "One transition of an event video's indexing.",
  fields: {
    eventId: { type: new GraphQLNonNull(GraphQLInt) },
    videoId: { type: new GraphQLNonNull(GraphQLString) },
    status: { type: new GraphQLNonNull(GraphQLString), description: 'uploaded, indexing, indexed or failed.' },
    progress: { type: new GraphQLNonNull(GraphQLFloat), description: 'Share of the video indexed, 0-1.' },
    error: { type: GraphQLString, description: 'Why indexing failed.' },
    at: { type: new GraphQLNonNull(GraphQLString), description: 'ISO time of the transition.' },
  },
});

type ClipStatusArgs = { orgId: number; eventId: number; requestId: string };
type EventFeedArgs = { orgId: number; eventId: number };
type EventFeedStream<Context> = (args: EventFeedArgs, ctx: Context) => AsyncGenerator<Record<string, unknown>>;

/** The streams of the fields that follow an event (each optional, so a schema of the clip field alone can be built). */
export interface EventFeedStreams<Context> {
  photoStatus?: EventFeedStream<Context>;
  videoStatus?: EventFeedStream<Context>;
}

const eventFeedField = <Context>(
  type: GraphQLObjectType,
  description: string,
  stream: EventFeedStream<Context> = async function* () {},
): GraphQLFieldConfig<unknown, Context, EventFeedArgs> => ({
  type: new GraphQLNonNull(type),
  description,
  args: {
    orgId: { type: new GraphQLNonNull(GraphQLInt) },
    eventId: { type: new GraphQLNonNull(GraphQLInt) },
  },
  subscribe: (_root, args, ctx) => stream(args, ctx),
});

/** The gateway's subscription schema over each field's stream. */
export function makeSubscriptionSchema<Context>(
  clipStatus: (args: ClipStatusArgs, ctx: Context) => AsyncGenerator<{ clipStatus: unknown }>,
  { photoStatus, videoStatus }: EventFeedStreams<Context> = {},
): GraphQLSchema {
  const field: GraphQLFieldConfig<unknown, Context, ClipStatusArgs> = {
    type: new GraphQLNonNull(ClipStatusType),
    description: "The request's current status at once, then every transition; completes after the terminal one.",
    args: {
      orgId: { type: new GraphQLNonNull(GraphQLInt) },
      eventId: { type: new GraphQLNonNull(GraphQLInt) },
      requestId: { type: new GraphQLNonNull(GraphQLString) },
    },
    subscribe: (_root, args, ctx) => clipStatus(args, ctx),
  };
  return new GraphQLSchema({
    query: new GraphQLObjectType({
      name: 'Query',
      fields: { subscriptionsOnly: { type: GraphQLBoolean, resolve: () => true } },
    }),
    subscription: new GraphQLObjectType({
      name: 'Subscription',
      fields: {
        clipStatus: field,
        photoStatus: eventFeedField(
          PhotoStatusType,
          "Every transition of the event's photos from now on (organisers, like pipelineStatus).",
          photoStatus,
        ),
        videoStatus: eventFeedField(
          VideoStatusType,
          "Every transition of the event's videos from now on: added, indexing progress, indexed, failed (organisers, like eventVideos).",
          videoStatus,
        ),
      },
    }),
  });
}
