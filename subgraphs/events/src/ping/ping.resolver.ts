import { OrgEventArgs, SubgraphContext } from '@em/subgraph-kit';
import { Args, Ctx, Query, Resolver } from 'type-graphql';
import { PingType } from './ping.types';
import { PingService } from './ping.service';

@Resolver()
export class PingResolver {
  constructor(private readonly service: PingService) {}

  @Query(() => PingType)
  ping(@Ctx() ctx: SubgraphContext, @Args() { orgId, eventId }: OrgEventArgs) {
    return this.service.ping(ctx.principal, orgId, eventId);
  }
}
