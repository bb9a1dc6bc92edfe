import { FileUpload, GraphQLUpload, OrgEventArgs, readUpload, SubgraphContext } from '@em/subgraph-kit';
import { Arg, Args, Ctx, Field, Int, Mutation, ObjectType, Query, registerEnumType, Resolver } from 'type-graphql';
import { StartListService } from './start-list.service';

/** The largest start list file accepted (200,000 lines of ~50 bytes fit several times over). */
export const START_LIST_MAX_BYTES = 32 * 1024 * 1024;

export enum StartListImportMode {
  APPEND = 'append',
  REPLACE = 'replace',
}
registerEnumType(StartListImportMode, {
  name: 'StartListImportMode',
  description:
    'APPEND adds the lines to the start list (a bib already listed is an invalid line); REPLACE replaces the whole list.',
});

@ObjectType('StartListLineError', { description: 'A line of a start list file that was not imported, and why.' })
export class StartListLineErrorType {
  @Field(() => Int, { description: 'Line number in the file (the header is line 1).' }) line!: number;
  @Field() reason!: string;
}

@ObjectType('StartListImport')
export class StartListImportType {
  @Field(() => Int, { description: 'Participants stored by this import.' }) imported!: number;
  @Field(() => Int, { description: "Participants on the event's start list now." }) total!: number;
  @Field(() => [StartListLineErrorType], { description: 'Lines left out (skipInvalid only).' })
  skipped!: StartListLineErrorType[];
}

@ObjectType('StartListExport')
export class StartListExportType {
  @Field({
    description: 'The start list as CSV (bib,first_name,last_name,name,category,team), UTF-8, comma separated.',
  })
  csv!: string;
  @Field(() => Int) count!: number;
}

@Resolver()
export class StartListResolver {
  constructor(private readonly service: StartListService) {}

  @Mutation(() => StartListImportType, {
    description:
      "Imports the event's start list from a CSV file (header row; bib, first_name/last_name or name, category, team; comma or semicolon; UTF-8). " +
      'Invalid lines: BAD_USER_INPUT listing them (extensions.lines) and nothing stored, unless skipInvalid. Needs write access to the event.',
  })
  async importStartList(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId, eventId }: OrgEventArgs,
    @Arg('file', () => GraphQLUpload) file: Promise<FileUpload>,
    @Arg('mode', () => StartListImportMode) mode: StartListImportMode,
    // Nullable: a client's variable left null means "no" (a null for a non-null argument failed as INTERNAL).
    @Arg('skipInvalid', () => Boolean, { nullable: true }) skipInvalid: boolean | null,
  ) {
    const read = async () => (await readUpload(file, { maxBytes: START_LIST_MAX_BYTES })).content;
    return this.service.import(ctx.principal, orgId, eventId, read, mode, skipInvalid ?? false);
  }

  @Query(() => Int, {
    description: "How many participants the event's start list has (0: none). Write access to the event, as the list.",
  })
  startListSize(@Ctx() ctx: SubgraphContext, @Args() { orgId, eventId }: OrgEventArgs) {
    return this.service.size(ctx.principal, orgId, eventId);
  }

  @Query(() => StartListExportType, {
    description:
      "The event's start list as CSV (names are personal data: write access to the event, never a read-only key).",
  })
  exportStartList(@Ctx() ctx: SubgraphContext, @Args() { orgId, eventId }: OrgEventArgs) {
    return this.service.export(ctx.principal, orgId, eventId);
  }
}
