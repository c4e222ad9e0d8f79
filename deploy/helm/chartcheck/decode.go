// Package main decodes rendered Kubernetes manifests strictly against the Kubernetes API types, as
// an API server with strict field validation would: an unknown or misspelled field, a field written
// twice, a field in the wrong case, a value of the wrong type or a kind this chart does not know is
// an error. It needs no cluster and no downloaded schemas: the types are k8s.io/api's.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// Object is one decoded manifest with where it came from.
type Object struct {
	Index  int // position in the stream, from 1
	GVK    schema.GroupVersionKind
	Name   string
	Typed  runtime.Object
	Source string // the file or stream it came from
}

func (o Object) String() string {
	return fmt.Sprintf("%s #%d %s/%s", o.Source, o.Index, o.GVK.Kind, o.Name)
}

// newScheme knows the API groups a chart of this kind renders; anything else is refused.
func newScheme() *runtime.Scheme {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme,
		appsv1.AddToScheme,
		autoscalingv2.AddToScheme,
		batchv1.AddToScheme,
		networkingv1.AddToScheme,
		policyv1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			panic(err)
		}
	}
	return scheme
}

var scheme = newScheme()

// DecodeStream splits a multi-document YAML stream and decodes each document strictly. Empty
// documents (a template that rendered nothing) are skipped. It returns every object it decoded and
// every problem it found, so that one run names them all.
func DecodeStream(source string, r io.Reader) ([]Object, []error) {
	var objects []Object
	var problems []error
	reader := utilyaml.NewYAMLReader(bufioReader(r))
	for index := 1; ; index++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			problems = append(problems, fmt.Errorf("%s #%d: %w", source, index, err))
			break
		}
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			index--
			continue
		}
		object, err := DecodeDocument(doc)
		object.Index, object.Source = index, source
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: %w", object, err))
			continue
		}
		objects = append(objects, object)
	}
	return objects, problems
}

// DecodeDocument decodes one YAML document into its Kubernetes type, refusing unknown, duplicate
// and wrongly cased fields.
func DecodeDocument(doc []byte) (Object, error) {
	// Duplicate keys are refused here; YAML-only features (anchors, tags) become plain JSON.
	data, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return Object{}, fmt.Errorf("not valid YAML: %w", err)
	}
	var meta struct {
		metav1.TypeMeta `json:",inline"`
		Metadata        struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &meta); err != nil {
		return Object{}, fmt.Errorf("no apiVersion/kind/metadata: %w", err)
	}
	gvk := meta.GroupVersionKind()
	object := Object{GVK: gvk, Name: meta.Metadata.Name}
	if gvk.Kind == "" || gvk.Version == "" {
		return object, errors.New("apiVersion and kind are required")
	}
	if meta.Metadata.Name == "" {
		return object, errors.New("metadata.name is required")
	}
	typed, err := scheme.New(gvk)
	if err != nil {
		return object, fmt.Errorf("unknown apiVersion/kind %s: %w", gvk, err)
	}
	strictErrs, err := kjson.UnmarshalStrict(data, typed)
	if err != nil {
		return object, err
	}
	if len(strictErrs) > 0 {
		messages := make([]string, len(strictErrs))
		for i, e := range strictErrs {
			messages[i] = e.Error()
		}
		return object, errors.New(strings.Join(messages, "; "))
	}
	object.Typed = typed
	return object, checkSemantics(typed)
}

// checkSemantics refuses what the API server would refuse although the types accept it, for the
// few rules a chart most often breaks.
func checkSemantics(object runtime.Object) error {
	switch o := object.(type) {
	case *appsv1.Deployment:
		if o.Spec.Selector == nil {
			return errors.New("spec.selector is required")
		}
		selector, err := metav1.LabelSelectorAsSelector(o.Spec.Selector)
		if err != nil {
			return fmt.Errorf("spec.selector: %w", err)
		}
		if selector.Empty() || !selector.Matches(labels.Set(o.Spec.Template.Labels)) {
			return errors.New("spec.selector does not match spec.template.metadata.labels")
		}
		if len(o.Spec.Template.Spec.Containers) == 0 {
			return errors.New("spec.template.spec.containers is empty")
		}
	case *batchv1.Job:
		if len(o.Spec.Template.Spec.Containers) == 0 {
			return errors.New("spec.template.spec.containers is empty")
		}
		policy := o.Spec.Template.Spec.RestartPolicy
		if policy != corev1.RestartPolicyNever && policy != corev1.RestartPolicyOnFailure {
			return errors.New("a Job's spec.template.spec.restartPolicy must be Never or OnFailure")
		}
	case *policyv1.PodDisruptionBudget:
		if (o.Spec.MinAvailable == nil) == (o.Spec.MaxUnavailable == nil) {
			return errors.New("set exactly one of spec.minAvailable and spec.maxUnavailable")
		}
	}
	return nil
}
