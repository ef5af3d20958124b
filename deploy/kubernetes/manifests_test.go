package kubernetes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/yaml"

	"github.com/nodegate/nodegate/internal/config"
)

// decodeStrict decodes one YAML document into out; a field the Kubernetes
// type does not have is an error.
func decodeStrict(doc []byte, out any) error {
	raw, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(out)
}

// manifests are every document of every YAML file here, decoded by kind.
type manifests struct {
	configMaps  []corev1.ConfigMap
	secrets     []corev1.Secret
	services    []corev1.Service
	deployments []appsv1.Deployment
	pdbs        []policyv1.PodDisruptionBudget
	hpas        []autoscalingv2.HorizontalPodAutoscaler
}

func (m *manifests) add(doc []byte) error {
	var head struct{ APIVersion, Kind string }
	if err := yaml.Unmarshal(doc, &head); err != nil {
		return err
	}
	var err error
	switch head.APIVersion + " " + head.Kind {
	case "v1 ConfigMap":
		var v corev1.ConfigMap
		err = decodeStrict(doc, &v)
		m.configMaps = append(m.configMaps, v)
	case "v1 Secret":
		var v corev1.Secret
		err = decodeStrict(doc, &v)
		m.secrets = append(m.secrets, v)
	case "v1 Service":
		var v corev1.Service
		err = decodeStrict(doc, &v)
		m.services = append(m.services, v)
	case "apps/v1 Deployment":
		var v appsv1.Deployment
		err = decodeStrict(doc, &v)
		m.deployments = append(m.deployments, v)
	case "policy/v1 PodDisruptionBudget":
		var v policyv1.PodDisruptionBudget
		err = decodeStrict(doc, &v)
		m.pdbs = append(m.pdbs, v)
	case "autoscaling/v2 HorizontalPodAutoscaler":
		var v autoscalingv2.HorizontalPodAutoscaler
		err = decodeStrict(doc, &v)
		m.hpas = append(m.hpas, v)
	default:
		return fmt.Errorf("unexpected kind %q %q", head.APIVersion, head.Kind)
	}
	return err
}

func load(t *testing.T) *manifests {
	t.Helper()
	files, _ := filepath.Glob("*.yaml")
	if len(files) == 0 {
		t.Fatal("no manifests")
	}
	m := &manifests{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range bytes.Split(raw, []byte("\n---\n")) {
			if len(bytes.TrimSpace(doc)) == 0 {
				continue
			}
			if err := m.add(doc); err != nil {
				t.Fatalf("%s document %d: %v", f, i, err)
			}
		}
	}
	return m
}

// TestStrictDecodeRefusesUnknownFields: the decoder the manifests pass
// through refuses a misspelt field.
func TestStrictDecodeRefusesUnknownFields(t *testing.T) {
	raw, err := os.ReadFile("deployment.yaml")
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Replace(raw, []byte("readinessProbe:"), []byte("readynessProbe:"), 1)
	var d appsv1.Deployment
	if err := decodeStrict(bad, &d); err == nil || !strings.Contains(err.Error(), "readynessProbe") {
		t.Fatalf("a misspelt field was accepted: %v", err)
	}
	var m manifests
	if err := m.add([]byte("apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec: {selectr: {}}\n")); err == nil {
		t.Fatal("an unknown Service field was accepted")
	}
}

func port(t *testing.T, hostport string) int32 {
	t.Helper()
	_, p, err := net.SplitHostPort(hostport)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(p)
	return int32(n)
}

// TestManifestsAgreeWithConfig: probes, ports, grace period, secrets and
// selectors agree with the nodegate config the ConfigMap carries.
func TestManifestsAgreeWithConfig(t *testing.T) {
	m := load(t)
	if len(m.configMaps) != 1 || len(m.deployments) != 1 || len(m.secrets) != 1 || len(m.pdbs) != 1 || len(m.hpas) != 1 || len(m.services) == 0 {
		t.Fatalf("manifests: %d configmaps, %d deployments, %d secrets, %d pdbs, %d hpas, %d services",
			len(m.configMaps), len(m.deployments), len(m.secrets), len(m.pdbs), len(m.hpas), len(m.services))
	}
	dep := m.deployments[0]
	pod := dep.Spec.Template.Spec
	c := pod.Containers[0]
	secret := m.secrets[0]

	// The config file: decoded and validated as nodegate would, with the
	// environment the Deployment gives it from the Secret.
	env := map[string]string{}
	for _, e := range c.Env {
		ref := e.ValueFrom.SecretKeyRef
		if ref == nil || ref.Name != secret.Name {
			t.Fatalf("env %s does not come from Secret %s", e.Name, secret.Name)
		}
		v, ok := secret.StringData[ref.Key]
		if !ok {
			t.Fatalf("env %s: Secret %s has no key %s", e.Name, secret.Name, ref.Key)
		}
		env[e.Name] = v
		t.Setenv(e.Name, v)
	}
	for _, want := range []string{"NODEGATE_DATABASE_URL", "NODEGATE_REDIS_URL", "NODEGATE_ADMIN_TOKEN"} {
		if _, ok := env[want]; !ok {
			t.Fatalf("no %s from the Secret", want)
		}
	}
	var fileName, mountPath string
	for i, a := range c.Args {
		if a == "--config" && i+1 < len(c.Args) {
			mountPath, fileName = filepath.Split(c.Args[i+1])
		}
	}
	cfg := config.Defaults()
	text, ok := m.configMaps[0].Data[fileName]
	if !ok {
		t.Fatalf("ConfigMap has no %q (the --config of the container)", fileName)
	}
	if err := config.Decode([]byte(text), &cfg); err != nil {
		t.Fatalf("config: %v", err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("config: %v", err)
	}
	mounted := false
	for _, vm := range c.VolumeMounts {
		for _, v := range pod.Volumes {
			if v.Name == vm.Name && v.ConfigMap != nil && v.ConfigMap.Name == m.configMaps[0].Name && filepath.Clean(vm.MountPath) == filepath.Clean(mountPath) {
				mounted = true
			}
		}
	}
	if !mounted {
		t.Fatalf("the ConfigMap is not mounted at %s", mountPath)
	}

	// Ports and probes.
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	if ports["rpc"] != port(t, cfg.Listen) || ports["admin"] != port(t, cfg.Admin.Listen) {
		t.Fatalf("container ports %v, config listens on %s and %s", ports, cfg.Listen, cfg.Admin.Listen)
	}
	probe := func(name string, p *corev1.Probe, path string) {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != path || ports[p.HTTPGet.Port.String()] != port(t, cfg.Listen) {
			t.Fatalf("%s probe must GET %s on the client port: %+v", name, path, p)
		}
	}
	probe("readiness", c.ReadinessProbe, "/ready")
	probe("liveness", c.LivenessProbe, "/health")

	// The grace period covers the preStop sleep, the drain delay and the
	// time calls in flight may take.
	var preStop time.Duration
	if c.Lifecycle != nil && c.Lifecycle.PreStop != nil && c.Lifecycle.PreStop.Sleep != nil {
		preStop = time.Duration(c.Lifecycle.PreStop.Sleep.Seconds) * time.Second
	}
	if preStop == 0 {
		t.Fatal("no preStop sleep: endpoints may still send to a terminating pod")
	}
	need := preStop + cfg.Shutdown.DrainDelay + cfg.Shutdown.Timeout
	if pod.TerminationGracePeriodSeconds == nil || time.Duration(*pod.TerminationGracePeriodSeconds)*time.Second <= need {
		t.Fatalf("terminationGracePeriodSeconds %v must exceed preStop %v + drain_delay %v + timeout %v",
			pod.TerminationGracePeriodSeconds, preStop, cfg.Shutdown.DrainDelay, cfg.Shutdown.Timeout)
	}
	// The readiness probe notices a drain well within the drain delay.
	if r := c.ReadinessProbe; time.Duration(r.PeriodSeconds*r.FailureThreshold)*time.Second >= cfg.Shutdown.DrainDelay {
		t.Fatalf("readiness period x failures %ds is not shorter than drain_delay %v", r.PeriodSeconds*r.FailureThreshold, cfg.Shutdown.DrainDelay)
	}

	// Selectors and targets.
	labels := dep.Spec.Template.Labels
	matches := func(sel map[string]string) bool {
		for k, v := range sel {
			if labels[k] != v {
				return false
			}
		}
		return len(sel) > 0
	}
	for _, s := range m.services {
		if !matches(s.Spec.Selector) {
			t.Fatalf("Service %s selects no nodegate pod", s.Name)
		}
		for _, p := range s.Spec.Ports {
			if _, ok := ports[p.TargetPort.String()]; !ok {
				t.Fatalf("Service %s targets port %s, which the container does not name", s.Name, p.TargetPort.String())
			}
		}
	}
	if !matches(m.pdbs[0].Spec.Selector.MatchLabels) || m.pdbs[0].Spec.MinAvailable.IntValue() >= int(*dep.Spec.Replicas) {
		t.Fatalf("PodDisruptionBudget: %+v", m.pdbs[0].Spec)
	}
	h := m.hpas[0].Spec
	if h.ScaleTargetRef.Kind != "Deployment" || h.ScaleTargetRef.Name != dep.Name || *h.MinReplicas > h.MaxReplicas || *h.MinReplicas <= int32(m.pdbs[0].Spec.MinAvailable.IntValue()) {
		t.Fatalf("HorizontalPodAutoscaler: %+v", h)
	}
	if !slices.Contains(c.Args, "serve") {
		t.Fatalf("args %v", c.Args)
	}
}
