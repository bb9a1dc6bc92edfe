import { OrgArgs, SubgraphContext } from '@em/subgraph-kit';
import { Arg, Args, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import { ApiKeyType, CreatedApiKeyType } from './api-key.types';
import { ApiKeysService } from './api-keys.service';

@Resolver()
export class ApiKeysResolver {
  constructor(private readonly service: ApiKeysService) {}

  @Query(() => [ApiKeyType], { description: "The organisation's API keys (admins, scope events:write)." })
  apiKeys(@Ctx() ctx: SubgraphContext, @Args() { orgId }: OrgArgs) {
    return this.service.list(ctx.principal, orgId);
  }

  @Mutation(() => CreatedApiKeyType, { description: 'Creates an API key; the key is in the answer and never again.' })
  createApiKey(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId }: OrgArgs,
    @Arg('name') name: string,
    @Arg('allowedHosts', () => [String], { nullable: true }) allowedHosts?: string[],
    @Arg('rateLimit', () => Int, { nullable: true }) rateLimit?: number,
    @Arg('readOnly', { nullable: true, description: 'Reads and searches only: for a key that is public by nature.' })
    readOnly?: boolean,
    @Arg('eventIds', () => [Int], {
      nullable: true,
      description: 'Limits the key to these events of the organisation.',
    })
    eventIds?: number[],
  ) {
    return this.service.create(ctx.principal, orgId, {
      name,
      allowedHosts,
      rateLimit,
      readOnly: readOnly ?? false,
      eventIds,
    });
  }

  @Mutation(() => ApiKeyType, { description: 'Activates or deactivates a key (an inactive key gets 403).' })
  setApiKeyActive(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId }: OrgArgs,
    @Arg('keyId', () => Int) keyId: number,
    @Arg('active') active: boolean,
  ) {
    return this.service.setActive(ctx.principal, orgId, keyId, active);
  }

  @Mutation(() => Boolean, { description: 'Deletes a key for good.' })
  deleteApiKey(@Ctx() ctx: SubgraphContext, @Args() { orgId }: OrgArgs, @Arg('keyId', () => Int) keyId: number) {
    return this.service.delete(ctx.principal, orgId, keyId);
  }
}
