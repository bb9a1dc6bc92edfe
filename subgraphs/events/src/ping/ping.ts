import { guardEvent, Orm, Principal } from '@em/core';
import { SubgraphContext } from '@em/subgraph-kit';
import { Arg, Ctx, Field, Int, ObjectType, Query, Resolver } from 'type-graphql';

@ObjectType('Ping')
export class PingType {
  @Field({ description: 'Always "ok".' }) status!: string;
  @Field(() => Int) orgId!: number;
  @Field(() => Int) eventId!: number;
}

/** Checks key, host, organisation and event mapping without touching photo data. */
export class PingService {
  constructor(private readonly orm: Orm) {}

  async ping(principal: Principal, orgId: number, eventId: number): Promise<PingType> {
    await guardEvent(this.orm.em, principal, orgId, eventId);
    return { status: 'ok', orgId, eventId };
  }
}

@Resolver()
export class PingResolver {
  constructor(private readonly service: PingService) {}

  @Query(() => PingType)
  ping(@Ctx() ctx: SubgraphContext, @Arg('orgId', () => Int) orgId: number, @Arg('eventId', () => Int) eventId: number) {
    return this.service.ping(ctx.principal, orgId, eventId);
  }
}
