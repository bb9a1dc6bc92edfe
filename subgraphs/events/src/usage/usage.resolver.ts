import { OrgArgs, SubgraphContext } from '@em/subgraph-kit';
import { Arg, Args, Ctx, Field, GraphQLISODateTime, Int, ObjectType, Query, Resolver } from 'type-graphql';
import { UsageService } from './usage.service';

@ObjectType('UsageCounts')
export class UsageCountsType {
  @Field(() => Int, { description: 'Face searches with a new request_id (retries of a stored search are free).' })
  faceSearchesBilled!: number;
  @Field(() => Int) photosProcessed!: number;
  @Field(() => Int) videosIndexed!: number;
  @Field(() => Int) clipsMade!: number;
}

@ObjectType('UsageRow', { description: "One event's usage in one calendar month (UTC)." })
export class UsageRowType extends UsageCountsType {
  @Field(() => Int) eventId!: number;
  @Field({ description: 'YYYY-MM.' }) month!: string;
}

@ObjectType('UsageReport')
export class UsageReportType {
  @Field(() => GraphQLISODateTime) from!: Date;
  @Field(() => GraphQLISODateTime) to!: Date;
  @Field(() => [UsageRowType]) rows!: UsageRowType[];
  @Field(() => UsageCountsType) totals!: UsageCountsType;
}

@Resolver()
export class UsageResolver {
  constructor(private readonly service: UsageService) {}

  @Query(() => UsageReportType, {
    description:
      'Usage of the organisation per event and month in [from, to) (its admins); by default the last twelve months.',
  })
  usage(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId }: OrgArgs,
    @Arg('from', () => GraphQLISODateTime, { nullable: true }) from?: Date | null,
    @Arg('to', () => GraphQLISODateTime, { nullable: true }) to?: Date | null,
  ) {
    return this.service.report(ctx.principal, orgId, from, to);
  }
}
