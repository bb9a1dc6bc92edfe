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

type ClipStatusArgs = { orgId: number; eventId: number; requestId: string };

export function makeSubscriptionSchema<Context>(
  clipStatus: (args: ClipStatusArgs, ctx: Context) => AsyncGenerator<{ clipStatus: unknown }>,
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
    subscription: new GraphQLObjectType({ name: 'Subscription', fields: { clipStatus: field } }),
  });
}
