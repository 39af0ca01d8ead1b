package io.llmgw.envoy;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto.Label;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto.Type;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.DescriptorValidationException;
import com.google.protobuf.Descriptors.FileDescriptor;
import io.envoyproxy.envoy.config.cluster.v3.LoadBalancingPolicy;
import io.envoyproxy.envoy.type.metadata.v3.MetadataKey;

/**
 * Envoy's {@code envoy.load_balancing_policies.override_host} configuration (Envoy 1.35 and later), which walks the
 * EPP's ordered destination list. The Envoy API artifact on our mirror (1.0.49, Envoy 1.34) predates it, so its shape is
 * declared here, field by field as Envoy names them, only so that {@code envoy-fallbacks.yaml} is checked like every
 * other type: a misspelt field fails the parse.
 */
final class OverrideHostType {
  static final String FULL_NAME = "envoy.extensions.load_balancing_policies.override_host.v3.OverrideHost";

  private OverrideHostType() {}

  static Descriptor descriptor() {
    DescriptorProto source = DescriptorProto.newBuilder().setName("OverrideHostSource")
        .addField(field("header", 1, Type.TYPE_STRING, null, Label.LABEL_OPTIONAL))
        .addField(field("metadata", 2, Type.TYPE_MESSAGE, "." + MetadataKey.getDescriptor().getFullName(),
            Label.LABEL_OPTIONAL))
        .build();
    DescriptorProto overrideHost = DescriptorProto.newBuilder().setName("OverrideHost")
        .addNestedType(source)
        .addField(field("override_host_sources", 1, Type.TYPE_MESSAGE, "." + FULL_NAME + ".OverrideHostSource",
            Label.LABEL_REPEATED))
        .addField(field("fallback_policy", 3, Type.TYPE_MESSAGE,
            "." + LoadBalancingPolicy.getDescriptor().getFullName(), Label.LABEL_OPTIONAL))
        .build();
    FileDescriptorProto file = FileDescriptorProto.newBuilder()
        .setName("envoy/extensions/load_balancing_policies/override_host/v3/override_host.proto")
        .setPackage("envoy.extensions.load_balancing_policies.override_host.v3")
        .setSyntax("proto3")
        .addDependency(MetadataKey.getDescriptor().getFile().getName())
        .addDependency(LoadBalancingPolicy.getDescriptor().getFile().getName())
        .addMessageType(overrideHost)
        .build();
    try {
      return FileDescriptor.buildFrom(file, new FileDescriptor[] {MetadataKey.getDescriptor().getFile(),
          LoadBalancingPolicy.getDescriptor().getFile()}).findMessageTypeByName("OverrideHost");
    } catch (DescriptorValidationException e) {
      throw new IllegalStateException("the override_host descriptor is malformed", e);
    }
  }

  private static FieldDescriptorProto field(String name, int number, Type type, String typeName, Label label) {
    FieldDescriptorProto.Builder f = FieldDescriptorProto.newBuilder().setName(name).setNumber(number).setType(type)
        .setLabel(label);
    if (typeName != null) {
      f.setTypeName(typeName);
    }
    return f.build();
  }
}
