import { authorizeOperation, EventsRepository } from '@em/core/data';
import { SubgraphContext } from '@em/subgraph-kit';
import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';

@Resolver()
export class AuthorizeResolver {
  constructor(private readonly events: EventsRepository) {}

  @Query(() => Boolean, {
    description:
      'Whether the caller may run `operation` (a root field, e.g. "importPhotos") on this organisation and event: the same checks as the operation itself (credential, organisation, event, feature flags, write access), without its work. True, or the error the operation would give. The REST adapter asks it before reading an upload.',
  })
  async authorize(
    @Ctx() ctx: SubgraphContext,
    @Arg('operation') operation: string,
    @Arg('orgId', () => Int, { nullable: true }) orgId?: number,
    @Arg('eventId', () => Int, { nullable: true }) eventId?: number,
  ): Promise<boolean> {
    await authorizeOperation(this.events, ctx.principal, operation, orgId ?? null, eventId ?? null);
    return true;
  }
}
