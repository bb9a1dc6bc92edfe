import { PageInfoType } from '@em/subgraph-kit';
import { Field, Float, ID, Int, ObjectType } from 'type-graphql';
import { PhotoRef } from '../photo-ref';

@ObjectType('FaceSearchMatch', { description: 'A photo on which the selfie person was found.' })
export class FaceSearchMatchType {
  @Field(() => PhotoRef) photo!: PhotoRef;
  @Field(() => Float, {
    description: 'Similarity of the nearest face on the photo, in percent (58 = the default threshold).',
  })
  similarity!: number;
}

@ObjectType('FaceSearchResult')
export class FaceSearchResultType {
  @Field(() => ID, { description: 'Identifies the search: reuse it for paging, retries, clipping and downloads.' })
  requestId!: string;
  @Field(() => Float, {
    nullable: true,
    description:
      "The threshold that filtered the matches (percent): the event's, or the default 58 when it configures none.",
  })
  confidencePercentage!: number | null;
  @Field({ description: 'True when answered from the stored result (a retry or a read): not billed.' })
  cached!: boolean;
  @Field(() => Int, { description: 'Faces found on the selfie; the largest one was matched.' }) facesFound!: number;
  @Field(() => [FaceSearchMatchType], { description: 'Best match first; ties by photo id. Stable across pages.' })
  items!: FaceSearchMatchType[];
  @Field(() => PageInfoType) pageInfo!: PageInfoType;
}

@ObjectType('FaceSearchUsage', {
  description: 'Face searches of an organisation: first runs are billable, cached retries are not.',
})
export class FaceSearchUsageType {
  @Field(() => Int) billableSearches!: number;
  @Field(() => Int) cachedRetries!: number;
}
