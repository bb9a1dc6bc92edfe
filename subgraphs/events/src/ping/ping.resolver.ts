import { SubgraphContext } from '@em/subgraph-kit';
import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import { PingType } from './ping.types';
import { PingService } from './ping.service';

@Resolver()
export class PingResolver {
  constructor(private readonly service: PingService) {}

  @Query(() => PingType)
  ping(@Ctx() ctx: SubgraphContext, @Arg('orgId', () => Int) orgId: number, @Arg('eventId', () => Int) eventId: number) {
    return this.service.ping(ctx.principal, orgId, eventId);
  }
}
