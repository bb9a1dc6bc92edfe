import {
  GraphQLFieldConfig,
  GraphQLInt,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  GraphQLBoolean,
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

type ClipStatusArgs = { orgId: number; eventId: number; requestId: string };
type PhotoStatusArgs = { orgId: number; eventId: number };

/** A subscription field's stream; the photo one is optional so a schema of the clip field alone can be built. */
export function makeSubscriptionSchema<Context>(
  clipStatus: (args: ClipStatusArgs, ctx: Context) => AsyncGenerator<{ clipStatus: unknown }>,
  photoStatus: (
    args: PhotoStatusArgs,
    ctx: Context,
  ) => AsyncGenerator<{ photoStatus: unknown }> = async function* () {},
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
        photoStatus: {
          type: new GraphQLNonNull(PhotoStatusType),
          description: "Every transition of the event's photos from now on (organisers, like pipelineStatus).",
          args: {
            orgId: { type: new GraphQLNonNull(GraphQLInt) },
            eventId: { type: new GraphQLNonNull(GraphQLInt) },
          },
          subscribe: (_root, args: PhotoStatusArgs, ctx: Context) => photoStatus(args, ctx),
        } as GraphQLFieldConfig<unknown, Context, PhotoStatusArgs>,
      },
    }),
  });
}
